package exec

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// A goal's continuation turn that needs an approval while no client is
// attached waits for it: the approvals webhook hears of it, `threads
// list` shows the thread waiting_for_approval, `interpreter approve`
// lists and answers it, and the goal then goes on to complete.
func TestHeadlessGoalApprovalIsAnsweredFromTheCLI(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "over 0 continuation turns", Steps: []fakemodel.Step{
			{Shell: "touch deployed.txt"},
			{ToolCalls: []fakemodel.ToolCall{e2etest.ToolCall("update_goal", `{"status":"complete"}`)}},
			{Text: "deployed"},
		}},
		// Slow, so that exec is gone before the continuation asks (exec
		// with no terminal would deny the approval at once).
		{Steps: []fakemodel.Step{{DelayMs: 4000, Text: "planning the deploy"}}},
	}})
	var mu sync.Mutex
	var hooks []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hooks = append(hooks, string(b))
		mu.Unlock()
	}))
	defer hook.Close()
	dev := e.StartDev()
	defer dev.Kill()
	run := e.Exec("--approval-policy", "untrusted", "-c", "approvals.webhook_url="+hook.URL, "--goal", "deploy the site")
	run.WaitFor(func() bool { return regexp.MustCompile(`(?m)^thread \S+ ·`).MatchString(run.Stderr.String()) },
		60*time.Second, "exec to name its thread")
	id := regexp.MustCompile(`(?m)^thread (\S+) ·`).FindStringSubmatch(run.Stderr.String())[1]
	// exec sets the goal right after it names the thread; then the client
	// leaves, and the continuation turn runs with no one there.
	e2etest.WaitUntil(t, func() bool { _, out, _ := e.goalCLI("show", id); return strings.Contains(out, "status: active") },
		60*time.Second, "the goal to be set", func() string { return run.Stderr.String() })
	run.Kill()
	if e.Model.Server.ArrivalsContaining("over 0 continuation turns") > 0 {
		t.Fatal("the continuation began before exec was killed; the test would prove nothing")
	}

	var listed *listedThread
	e2etest.WaitUntil(t, func() bool {
		listed = findThread(e.listThreads(), id)
		return listed != nil && listed.Status == "waiting_for_approval"
	}, 90*time.Second, "threads list to show the thread waiting", func() string {
		_, l, _ := e.threads("list")
		_, a, _ := e.approveList(id)
		_, g, _ := e.goalCLI("show", id)
		_, s, _ := e.threads("show", id)
		return strings.Join([]string{l, a, g, s, dev.Stderr.String()}, "\n")
	})
	if ts := e.listThreads("--status", "waiting_for_approval"); findThread(ts, id) == nil {
		t.Fatalf("threads list --status waiting_for_approval leaves the thread out: %v", ts)
	}
	code, out, errOut := e.approveList(id)
	item := regexp.MustCompile(`approve \S+ (item_\d+) --decision`).FindStringSubmatch(out)
	if code != 0 || !strings.Contains(out, "touch deployed.txt") || item == nil {
		t.Fatalf("approve %s: exit %d\n%s\n%s", id, code, out, errOut)
	}
	e2etest.WaitUntil(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(hooks) == 1 && strings.Contains(hooks[0], "touch deployed.txt")
	}, 30*time.Second, "the webhook to be told", func() string { mu.Lock(); defer mu.Unlock(); return strings.Join(hooks, "\n") })

	p := e.Start(append(append([]string{"approve"}, e.Config()...), id, item[1], "--decision", "approve")...)
	if code := p.Wait(60 * time.Second); code != 0 || !strings.Contains(p.Stdout.String(), item[1]+": approve") {
		t.Fatalf("approve %s: exit %d\n%s\n%s", item[1], code, p.Stdout, p.Stderr)
	}
	e2etest.WaitUntil(t, func() bool {
		_, out, _ := e.goalCLI("show", id)
		return strings.Contains(out, "status: complete")
	}, 90*time.Second, "the goal to complete", func() string { _, out, _ := e.goalCLI("show", id); return out })
	if _, err := os.Stat(filepath.Join(e.Work, "deployed.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	e2etest.WaitUntil(t, func() bool {
		listed = findThread(e.listThreads(), id)
		return listed != nil && listed.Status == "completed"
	}, 30*time.Second, "the thread's status after the turn", func() string { return listed.Status })
}
