package crash

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// A shell command running when its worker is SIGKILLed dies with it: the
// write it would have made 3 s in never happens, and its item tells how
// long it ran, with the one status every front end gives an interrupted
// command (failed; the human line adds the cause).
func TestWorkerKillEndsTheCommandAndReportsItsRun(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo start >> runs.txt; sh -c 'sleep 3; echo late >> f'"},
		{Text: "recovered after the crash"},
	}}}})
	runs, late := filepath.Join(e.Work, "runs.txt"), filepath.Join(e.Work, "f")
	dev := e.StartDev()
	// The nested sh -c is an opaque script to the classifier, which asks
	// for approval; never lets it run.
	run := e.Exec("-c", "approval_policy=never", "run the long command")
	run.WaitFor(func() bool { b, _ := os.ReadFile(runs); return strings.Contains(string(b), "start") }, 60*time.Second, "the command to start")
	started := time.Now()
	turnID := turnOf(t, run.Stderr.String())
	// Kill once the server holds a heartbeat that says the command ran a
	// while, so the report has a time to show.
	elapsed := awaitHeartbeat(t, e, turnID, 1000)
	dev.Kill()
	dev2 := e.StartDev()
	defer dev2.Kill()
	if code := run.Wait(90 * time.Second); code != 0 {
		t.Fatalf("exec exited %d\nstderr:\n%s", code, run.Stderr)
	}
	// The command would have written f 3 s after it started; look until
	// well past then.
	for time.Since(started) < 5*time.Second {
		if _, err := os.Stat(late); err == nil {
			t.Fatalf("the command went on after its worker was killed: %s was written", late)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(late); err == nil {
		t.Fatalf("the command went on after its worker was killed: %s was written", late)
	}
	m := regexp.MustCompile(`\[failed · interrupted · exit \? · (\d+) ms\]`).FindStringSubmatch(run.Stderr.String())
	if m == nil {
		t.Fatalf("no interrupted command line in the output:\n%s", run.Stderr)
	}
	t.Logf("killed after a heartbeat of %d ms; the item: %s", elapsed, m[0])
	if ms, _ := strconv.ParseInt(m[1], 10, 64); ms < elapsed || ms > elapsed+5000 {
		t.Errorf("the item says it ran %d ms; the last heartbeat before the kill said %d ms", ms, elapsed)
	}
	if !strings.Contains(run.Stderr.String(), "recovered after the crash") {
		t.Errorf("the turn did not go on:\n%s", run.Stderr)
	}
}

// turnOf reads the turn id from exec's "thread ID · TURN" line.
func turnOf(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`thread \S+ · (\S+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no thread line in:\n%s", stderr)
	}
	return m[1]
}

// awaitHeartbeat waits until the turn's running command has heartbeated
// at least minMs of run time to the server, and returns that time.
func awaitHeartbeat(t *testing.T, e *env, turnID string, minMs int64) int64 {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: fmt.Sprintf("127.0.0.1:%d", e.Port), Logger: e2etest.QuietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got int64
	e2etest.WaitUntil(t, func() bool {
		d, err := c.DescribeWorkflowExecution(context.Background(), turnID, "")
		if err != nil {
			return false
		}
		for _, pa := range d.GetPendingActivities() {
			var p activities.ExecProgress
			if pa.GetHeartbeatDetails() == nil || client.NewValues(pa.GetHeartbeatDetails()).Get(&p) != nil {
				continue
			}
			if p.ElapsedMs >= minMs {
				got = p.ElapsedMs
				return true
			}
		}
		return false
	}, 30*time.Second, "a heartbeat of the running command", func() string { return "" })
	return got
}
