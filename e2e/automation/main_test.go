// Package automation tests automations end to end: the built binary's
// `automation` commands against `interpreter dev`, its schedules firing
// prompt runs and command jobs, across a SIGKILL of the dev server.
package automation

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

type env struct{ *e2etest.Env }

// cli runs `interpreter automation ARGS...` against the running dev
// server and returns its exit code and output.
func (e *env) cli(args ...string) (int, string, string) {
	e.T.Helper()
	all := append([]string{"automation"}, e.Config()...)
	all = append(all, "-c", "temporal.embedded=false")
	p := e.Start(append(all, args...)...)
	code := p.Wait(60 * time.Second)
	return code, p.Stdout.String(), p.Stderr.String()
}

// must runs the command and fails the test unless it succeeds.
func (e *env) must(args ...string) string {
	e.T.Helper()
	code, out, errOut := e.cli(args...)
	if code != 0 {
		e.T.Fatalf("automation %v exited %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
	}
	return out
}

// automation is what `automation show --json` prints.
type automation struct {
	Name      string `json:"name"`
	Paused    bool   `json:"paused"`
	ThreadID  string `json:"thread_id"`
	Actions   int    `json:"runs_started"`
	Skipped   int    `json:"skipped_overlap"`
	NextTimes []time.Time
	Runs      []struct {
		WorkflowID string `json:"workflow_id"`
		Status     string `json:"status"`
		ThreadID   string `json:"thread_id"`
		Result     *struct {
			Status       string `json:"status"`
			ThreadID     string `json:"thread_id"`
			TurnID       string `json:"turn_id"`
			FinalMessage string `json:"final_message"`
			ExitCode     *int   `json:"exit_code"`
			Output       string `json:"output"`
			Error        string `json:"error"`
		} `json:"result"`
	} `json:"runs"`
}

func (e *env) show(name string) automation {
	e.T.Helper()
	var a automation
	out := e.must("show", name, "--json")
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		e.T.Fatalf("show --json: %v\n%s", err, out)
	}
	return a
}

// completed counts the runs that completed.
func (a automation) completed() int {
	n := 0
	for _, r := range a.Runs {
		if r.Status == "completed" {
			n++
		}
	}
	return n
}

func (a automation) running() bool {
	for _, r := range a.Runs {
		if r.Status == "running" {
			return true
		}
	}
	return false
}
