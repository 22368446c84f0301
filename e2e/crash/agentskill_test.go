package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// The "done when", as a user meets it: `interpreter exec` asks for
// three independent investigations in parallel; the model spawns three
// sub-agents and waits for each in turn; `interpreter threads list` shows
// the three running at once under their parent; a worker is SIGKILLed
// while sub-agents run their commands (and restarted), and again, for
// good, while the parent waits for the last one (the other worker carries
// on). The answer combines the three reports, no command ran twice, a
// command that was running on a killed worker is reported interrupted
// (its processes gone) and not run again.
func TestSubAgentsSurviveWorkerKills(t *testing.T) {
	w := newWorkerWorld(t, subAgentKillScript())
	a, _ := w.Worker()
	b, _ := w.Worker()
	begun := time.Now()
	run := w.Exec("--json", "-c", "features.multi_agent=true", "-c", "approval_policy=never",
		"run three independent investigations in parallel")
	run.WaitFor(func() bool { return strings.Contains(run.Stdout.String(), "thread.started") }, 60*time.Second, "the thread")
	root := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Three sub-agents, each in its first command.
	for _, name := range investigations {
		w.waitRuns(name+"-1", 1)
	}
	agents := w.agentsOf(ctx, root)
	listing := w.threadsList()
	t.Logf("all three commands running %v after exec started; `interpreter threads list`:\n%s", time.Since(begun).Round(time.Millisecond), listing)
	checkTreeListing(t, listing, root, agents)

	// (a) SIGKILL a worker that runs sub-agents' commands, preferring one
	// that leaves gamma's running (gamma is waited for last); restart it.
	holders := map[string]string{}
	for i, id := range agents {
		turn := workflows.TurnWorkflowID(id, 1)
		w.pendingStarted(turn, "Exec")
		holders[investigations[i]] = w.activityHolder(turn, "Exec")
	}
	victim := pickVictim(holders, a, b)
	var hit []string
	for _, name := range investigations {
		if holdsPid(holders[name], victim) {
			hit = append(hit, name)
		}
	}
	for _, id := range agents {
		w.settled(workflows.TurnWorkflowID(id, 1))
	}
	killA := time.Now()
	victim.Kill()
	restarted, ready := w.Worker()
	if victim == a {
		a = restarted
	} else {
		b = restarted
	}
	t.Logf("kill (a): worker %d ran the commands of %v; restarted and polling %v after the kill",
		victim.Cmd.Process.Pid, hit, ready.Sub(killA).Round(time.Millisecond))
	for _, name := range hit {
		i := indexOf(investigations, name)
		w.waitInterrupted(ctx, workflows.TurnWorkflowID(agents[i], 1))
		t.Logf("kill (a): %s's command reported interrupted %v after the kill", name, time.Since(killA).Round(time.Millisecond))
	}

	// (b) While the parent waits for gamma (alpha and beta reported,
	// gamma in its second command): SIGKILL the worker that ran the
	// parent's last workflow task; the other worker carries on.
	w.waitRuns("gamma-2", 1)
	e2etest.WaitUntil(t, func() bool {
		v, err := threads.Read(ctx, w.c, root)
		return err == nil && len(v.Agents) == 3 && v.Agents[0].Status == workflows.AgentCompleted && v.Agents[1].Status == workflows.AgentCompleted
	}, 2*time.Minute, "alpha and beta to report", func() string { return run.Stdout.String() })
	w.settled(root)
	parentHolder := w.lastTaskWorker(root)
	victim, survivor := a, b
	if !holdsPid(parentHolder, a) {
		victim, survivor = b, a
	}
	killB := time.Now()
	victim.Kill()
	t.Logf("kill (b): worker %d (the parent thread's last task: %s) killed for good while the parent waits for gamma; worker %d alone",
		victim.Cmd.Process.Pid, parentHolder, survivor.Cmd.Process.Pid)

	if code := run.Wait(4 * time.Minute); code != 0 {
		t.Fatalf("exec: exit %d\n%s", code, run.Stderr)
	}
	t.Logf("kill (b) to the answer %v; the whole turn %v", time.Since(killB).Round(time.Millisecond), time.Since(begun).Round(time.Millisecond))
	w.logAfterKill(killB, root, agents[2])
	answer := lastAgentMessage(e2etest.JSONLines(t, run.Stdout.String()))
	for _, name := range investigations {
		if !strings.Contains(answer, name+" report") {
			t.Errorf("the answer lacks %s's report: %q", name, answer)
		}
	}
	w.checkCommandsRanOnce(ctx, agents)
}

// logAfterKill logs, from the histories, where the time after the second
// kill went: gamma's command ending (interrupted or done), gamma's turn
// ending, the parent thread told, the parent's turn ending.
func (w *workerWorld) logAfterKill(killed time.Time, root, gamma string) {
	w.T.Helper()
	gt, rt := w.history(workflows.TurnWorkflowID(gamma, 1)), w.history(root+"/turn-1")
	since := func(at time.Time) string {
		if at.IsZero() {
			return "-"
		}
		return at.Sub(killed).Round(time.Millisecond).String()
	}
	cmdEnd := firstAfter(gt, killed, enumspb.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT, nil)
	if cmdEnd.IsZero() {
		cmdEnd = firstAfter(gt, killed, enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, nil)
	}
	w.T.Logf("after kill (b): gamma's command ended %s, gamma's turn ended %s, the parent thread told %s, the parent's turn ended %s; sticky timeouts: root thread %d, root turn %d",
		since(cmdEnd), since(firstAfter(gt, killed, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, nil)),
		since(firstAfter(w.history(root), killed, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, nil)),
		since(firstAfter(rt, killed, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, nil)),
		stickyTimeouts(w.history(root)), stickyTimeouts(rt))
	if testing.Verbose() && os.Getenv("CM_DEBUG") != "" {
		w.T.Logf("kill (b) at %s\ngamma's turn:\n%s\nroot thread:\n%s\nroot turn:\n%s", killed.Format("15:04:05.000"), dumpHistory(gt), dumpHistory(w.history(root)), dumpHistory(rt))
	}
}

// investigations are the three sub-agents' tasks, spawned in this order.
var investigations = []string{"alpha", "beta", "gamma"}

// subAgentKillScript: the parent spawns the three sub-agents in one answer,
// waits for each (by the id its spawn returned), then answers with the
// three results. alpha and beta run one command, gamma two (the second
// is the one the parent waits for at the second kill). Each command
// appends "run" and, when it ends, "end" to a file of its own, and
// carries a marker in its environment to find its processes by.
func subAgentKillScript() *fakemodel.Script {
	var spawns []fakemodel.ToolCall
	for _, name := range investigations {
		spawns = append(spawns, fakemodel.ToolCall{Name: "spawn_agent", Arguments: json.RawMessage(`{"message":"investigate ` + name + `"}`)})
	}
	steps := []fakemodel.Step{{ToolCalls: spawns}, {Text: "unused"}, {Text: "unused"}}
	for i := range investigations {
		steps = append(steps, fakemodel.Step{ToolCalls: []fakemodel.ToolCall{{Name: "wait_agent",
			Arguments: json.RawMessage(fmt.Sprintf(`{"targets":["{{output.%d.agent_id}}"],"timeout_ms":600000}`, i))}}})
	}
	steps = append(steps, fakemodel.Step{Text: "combined: {{output.3}} | {{output.4}} | {{output.5}}"})
	turns := []fakemodel.Turn{{Match: "three independent investigations", Steps: steps}}
	cmd := func(name string, secs int) string {
		return fmt.Sprintf("echo run >> %[1]s.runs; CRASHMATRIX=%[1]s sleep %[2]d; echo end >> %[1]s.runs; echo %[1]s-evidence", name, secs)
	}
	for _, name := range investigations {
		st := []fakemodel.Step{{Shell: cmd(name+"-1", 6)}}
		if name == "gamma" {
			st = append(st, fakemodel.Step{Shell: cmd(name+"-2", 8)})
		}
		turns = append(turns, fakemodel.Turn{Match: "investigate " + name, Steps: append(st, fakemodel.Step{Text: name + " report"})})
	}
	return &fakemodel.Script{Turns: turns}
}

// waitRuns waits until the command named has started n times.
func (w *workerWorld) waitRuns(name string, n int) {
	w.T.Helper()
	e2etest.WaitUntil(w.T, func() bool { return w.runs(name, "run") >= n }, 3*time.Minute, name+" to start", func() string { return "" })
}

// runs counts the lines word in a command's file.
func (w *workerWorld) runs(name, word string) int {
	b, _ := os.ReadFile(filepath.Join(w.Work, name+".runs"))
	return strings.Count(string(b), word+"\n")
}

// agentsOf reads the root's sub-agents' ids, in spawn order.
func (w *workerWorld) agentsOf(ctx context.Context, root string) []string {
	w.T.Helper()
	v, err := threads.Read(ctx, w.c, root)
	if err != nil {
		w.T.Fatal(err)
	}
	if len(v.Agents) != len(investigations) {
		w.T.Fatalf("the root has %d sub-agents, want %d", len(v.Agents), len(investigations))
	}
	ids := make([]string, len(v.Agents))
	for i, a := range v.Agents {
		ids[i] = a.ID
	}
	return ids
}

// threadsList runs `interpreter threads list` and returns its output.
func (w *workerWorld) threadsList() string {
	w.T.Helper()
	p := w.Start(append(append([]string{"threads", "list"}, w.Config()...), "-c", "temporal.embedded=false")...)
	if code := p.Wait(60 * time.Second); code != 0 {
		w.T.Fatalf("threads list: exit %d\n%s", code, p.Stderr)
	}
	return p.Stdout.String()
}

// checkTreeListing: the root's line, then its three sub-agents indented
// under it, each in progress.
func checkTreeListing(t *testing.T, listing, root string, agents []string) {
	t.Helper()
	lines := strings.Split(listing, "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, root+" ") {
			at = i
		}
	}
	if at < 0 || at+len(agents) >= len(lines) {
		t.Fatalf("the root is not listed with its sub-agents after it:\n%s", listing)
	}
	for i, id := range agents {
		f := strings.Fields(lines[at+1+i])
		if len(f) < 3 || f[0] != "└" || f[1] != id || f[2] != workflows.StatusInProgress {
			t.Errorf("line %d under the root: %q, want sub-agent %s in progress", i+1, lines[at+1+i], id)
		}
	}
}

// activityHolder is the identity of the worker running a workflow's
// started activity of the given type.
func (w *workerWorld) activityHolder(id, activityType string) string {
	w.T.Helper()
	d, err := w.c.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		w.T.Fatal(err)
	}
	for _, pa := range d.GetPendingActivities() {
		if pa.GetActivityType().GetName() == activityType {
			return pa.GetLastWorkerIdentity()
		}
	}
	w.T.Fatalf("no pending %s on %s", activityType, id)
	return ""
}

// lastTaskWorker is the identity of the worker that ran a workflow's last
// workflow task (whose cache holds it).
func (w *workerWorld) lastTaskWorker(id string) string {
	w.T.Helper()
	evs := w.history(id)
	for i := len(evs) - 1; i >= 0; i-- {
		if a := evs[i].GetWorkflowTaskStartedEventAttributes(); a != nil {
			return a.GetIdentity()
		}
	}
	w.T.Fatalf("no workflow task started on %s", id)
	return ""
}

func holdsPid(identity string, p *e2etest.Proc) bool {
	return strings.Contains(identity, fmt.Sprintf("/%d ", p.Cmd.Process.Pid))
}

// pickVictim is the worker to kill while the first commands run: one that
// runs some of them but not gamma's, if there is one.
func pickVictim(holders map[string]string, a, b *e2etest.Proc) *e2etest.Proc {
	for _, p := range []*e2etest.Proc{a, b} {
		if !holdsPid(holders["gamma"], p) && (holdsPid(holders["alpha"], p) || holdsPid(holders["beta"], p)) {
			return p
		}
	}
	if holdsPid(holders["gamma"], a) {
		return a
	}
	return b
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// commandItems reads a turn's command items (their last state).
func commandItems(ctx context.Context, w *workerWorld, turnID string) []workflows.Item {
	page, err := threads.Events(ctx, w.c, turnID, 0)
	if err != nil {
		return nil
	}
	var out []workflows.Item
	at := map[string]int{}
	for _, e := range page.Events {
		if e.Item == nil || e.Item.Type != workflows.ItemCommandExecution {
			continue
		}
		if i, ok := at[e.Item.ID]; ok {
			out[i] = *e.Item
			continue
		}
		at[e.Item.ID] = len(out)
		out = append(out, *e.Item)
	}
	return out
}

// waitInterrupted waits until a turn's first command is reported
// interrupted.
func (w *workerWorld) waitInterrupted(ctx context.Context, turnID string) {
	w.T.Helper()
	e2etest.WaitUntil(w.T, func() bool {
		items := commandItems(ctx, w, turnID)
		return len(items) > 0 && items[0].Status == workflows.StatusInterrupted
	}, 2*time.Minute, "the command of "+turnID+" to be reported interrupted", func() string {
		return fmt.Sprintf("%+v\n%s", commandItems(ctx, w, turnID), dumpHistory(w.history(turnID)))
	})
}

// checkCommandsRanOnce: every command started once; one that did not
// end is reported interrupted, told to the model as not run again, and
// left no process; at least one was.
func (w *workerWorld) checkCommandsRanOnce(ctx context.Context, agents []string) {
	w.T.Helper()
	interrupted := 0
	for i, name := range investigations {
		items := commandItems(ctx, w, workflows.TurnWorkflowID(agents[i], 1))
		cmds := []string{name + "-1"}
		if name == "gamma" {
			cmds = append(cmds, name+"-2")
		}
		if len(items) != len(cmds) {
			w.T.Errorf("%s: %d command items, want %d: %+v", name, len(items), len(cmds), items)
			continue
		}
		for j, c := range cmds {
			runs, ends := w.runs(c, "run"), w.runs(c, "end")
			if runs != 1 {
				w.T.Errorf("%s ran %d times", c, runs)
			}
			if pids := markerProcs(c); len(pids) > 0 {
				w.T.Errorf("%s left processes %v", c, pids)
			}
			switch st := items[j].Status; {
			case ends == 1 && st == workflows.StatusCompleted:
			case ends == 0 && st == workflows.StatusInterrupted:
				interrupted++
				if !strings.Contains(items[j].AggregatedOutput, "not run again") {
					w.T.Errorf("%s: interrupted, but its output does not say so: %q", c, items[j].AggregatedOutput)
				}
			default:
				w.T.Errorf("%s: %d ends, item %s", c, ends, st)
			}
		}
	}
	if interrupted == 0 {
		w.T.Errorf("no command was interrupted by the kills")
	}
	w.T.Logf("%d command(s) reported interrupted, none run twice", interrupted)
}

// lastAgentMessage is the text of the last completed agent message.
func lastAgentMessage(evs []map[string]any) string {
	text := ""
	for _, it := range e2etest.CompletedItems(evs) {
		if it["type"] == "agent_message" {
			text, _ = it["text"].(string)
		}
	}
	return text
}
