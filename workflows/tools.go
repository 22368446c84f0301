package workflows

import (
	"fmt"
	"path"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/sandbox"
)

// runTool runs one decoded tool call and returns the entry the model reads.
func (t *turn) runTool(ctx workflow.Context, c activities.DecodedCall) harness.Entry {
	reply := func(text string) harness.Entry {
		return harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name, Text: text}
	}
	if c.Inv.Error != "" {
		it := t.newItem(ItemError)
		it.Message = fmt.Sprintf("tool %s: %s", c.Call.Name, c.Inv.Error)
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		e := reply("error: " + c.Inv.Error)
		e.Error = true
		return e
	}
	if ctx.Err() != nil {
		return reply("not run: the turn was interrupted")
	}
	if t.aborted != nil {
		return reply("not run: the user stopped the turn")
	}
	switch c.Inv.Tool {
	case harness.ToolShell:
		return reply(t.runShell(ctx, c))
	case harness.ToolExecCommand:
		return reply(t.runExecCommand(ctx, c))
	case harness.ToolWriteStdin:
		return t.runWriteStdin(ctx, c)
	case harness.ToolPatch:
		return reply(t.runPatch(ctx, c))
	case harness.ToolPlan:
		return reply(t.updatePlan(c))
	case harness.ToolExternal:
		return t.runExternal(ctx, c)
	case harness.ToolViewImage:
		return t.viewImage(ctx, c, reply)
	case harness.ToolRead, harness.ToolWrite, harness.ToolEdit, harness.ToolList, harness.ToolGlob, harness.ToolGrep:
		return t.runFileTool(ctx, c, reply)
	}
	return reply(fmt.Sprintf("error: tool %q is not available", c.Call.Name))
}

func (t *turn) workdir(dir string) string {
	cwd := t.in.Config.Cwd
	if dir == "" {
		return cwd
	}
	if path.IsAbs(dir) {
		return path.Clean(dir)
	}
	return path.Join(cwd, dir)
}

// runShell runs a command at most once. The scheduled activity in history
// records the intent before it starts; if the worker dies while it runs the
// activity times out and is not retried: the item ends as interrupted and
// the model is told the outcome is unknown.
//
// Before it runs, the sandbox mode and approval policy decide
// ([sandbox.Assess]): run, refuse, or ask a person (a durable wait, see
// [turn.ask]). Under on-failure a command the sandbox seems to have
// stopped may be rerun unsandboxed, once a person approves.
func (t *turn) runShell(ctx workflow.Context, c activities.DecodedCall) string {
	cfg := t.in.Config
	argv := c.Inv.Command
	cmd := commandString(argv)
	it := t.newItem(ItemCommandExecution)
	it.Command, it.Cwd, it.Status = cmd, t.workdir(c.Inv.Workdir), StatusInProgress
	it.CallID = c.Call.CallID
	v, msg, ok := t.gate(ctx, it, argv, c.Inv)
	if !ok {
		return msg
	}
	policy, prefix := sandbox.Policy(cfg.ApprovalPolicy), sandbox.CommandPrefix(argv)
	t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})
	out, msg, done := t.execute(ctx, it, c, v.Unsandboxed, c.Call.CallID)
	if done {
		return msg
	}
	if policy == sandbox.OnFailure && out.Sandboxed && out.SandboxDenied {
		reason := fmt.Sprintf("the command failed inside the sandbox (exit code %d) in a way that looks like the sandbox stopped it; run it again without the sandbox?", out.ExitCode)
		rerun := t.sessionApproved(prefix, true)
		if !rerun {
			d, note := t.ask(ctx, it, Approval{Kind: "command", Command: cmd, Cwd: it.Cwd, Reason: reason, Unsandboxed: true}, prefix)
			rerun = d == DecisionApprove || d == DecisionApproveForSession
			if !rerun {
				text := t.finishExec(it, out)
				return text + "\n\n" + t.declinedNote(d, note, "Running it again without the sandbox")
			}
		}
		if out, msg, done = t.execute(ctx, it, c, true, c.Call.CallID+"-unsandboxed"); done {
			return msg
		}
	}
	return t.finishExec(it, out)
}

// gate decides whether a command may run: the sandbox mode and approval
// policy ([sandbox.Assess]) run it, refuse it, or ask a person (a durable
// wait, see [turn.ask]). When it may not run, the item is completed and
// msg is what the model reads.
func (t *turn) gate(ctx workflow.Context, it *Item, argv []string, inv harness.Invocation) (v sandbox.Verdict, msg string, ok bool) {
	cfg := t.in.Config
	policy, mode := sandbox.Policy(cfg.ApprovalPolicy), sandbox.Mode(cfg.SandboxMode)
	v = sandbox.Assess(policy, mode, argv, inv.Escalate, inv.Justification)
	prefix := sandbox.CommandPrefix(argv)
	switch {
	case v.Decision == sandbox.Refuse:
		it.Status = StatusDeclined
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return v, "refused: " + v.Reason, false
	case v.Decision == sandbox.Ask && !t.sessionApproved(prefix, v.Unsandboxed):
		d, note := t.ask(ctx, it, Approval{Kind: "command", Command: it.Command, Cwd: it.Cwd, Reason: v.Reason, Unsandboxed: v.Unsandboxed}, prefix)
		if d != DecisionApprove && d != DecisionApproveForSession {
			return v, t.declined(it, d, note, "The command"), false
		}
	}
	return v, "", true
}

// declinedNote tells the model that a rerun was declined (the item itself
// completed with the first run's outcome).
func (t *turn) declinedNote(decision, note, what string) string {
	switch decision {
	case "":
		return what + " was not done: the turn was interrupted while it waited for approval."
	case DecisionAbort:
		return what + " was declined, and the user stopped the turn."
	}
	if note != "" {
		return what + " was declined (" + note + ")."
	}
	return what + " was declined by the user."
}

// execute runs the command activity once. done means the item has been
// completed (interrupted, failed to run, refused by the sandbox) and msg
// is what the model reads; otherwise the caller completes it with out.
func (t *turn) execute(ctx workflow.Context, it *Item, c activities.DecodedCall, unsandboxed bool, callID string) (activities.ExecOutput, string, bool) {
	cfg := t.in.Config
	hb := t.commandHeartbeat()
	timeout := 24 * time.Hour
	if c.Inv.TimeoutMs > 0 {
		timeout = time.Duration(c.Inv.TimeoutMs)*time.Millisecond + time.Minute
	}
	opts := workflow.ActivityOptions{
		TaskQueue:           cfg.HostQueue,
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    hb,
		WaitForCancellation: true,
		Summary:             "exec: " + oneLine(it.Command, 120),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	}
	in := t.execInput(callID, c.Inv.Command, it.Cwd, unsandboxed)
	in.TimeoutMs = c.Inv.TimeoutMs
	var out activities.ExecOutput
	var err error
	handled := false
	if t.localCommands(ctx) {
		handled, err = t.execHere(ctx, opts, &in, it.ID+"/"+callID, &out)
	}
	if !handled {
		err = t.onHostRun(ctx, opts, func(o workflow.ActivityOptions) error {
			return t.awaitCommand(ctx, workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), acts.Exec, in), callID, &out)
		})
	}
	switch {
	case err != nil && ctx.Err() != nil:
		it.Status = StatusInterrupted
		it.DurationMs, it.AggregatedOutput = interruptedReport(err, "[interrupted: the turn was stopped while the command ran]")
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return out, "command interrupted: the turn was stopped while it ran", true
	case err != nil && (isTimeout(err) || isCommandLost(err)):
		it.Status = StatusInterrupted
		it.DurationMs, it.AggregatedOutput = interruptedReport(err, workerStopped)
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return out, "The command was interrupted: the worker running it stopped before it finished. " +
			"Its outcome is unknown (it may have partly run) and it was NOT run again. Check the state before retrying it.", true
	case err != nil:
		it.Status = StatusFailed
		it.AggregatedOutput = rootMessage(err)
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return out, "error: could not run the command: " + rootMessage(err), true
	case out.SandboxError != "":
		it.Status = StatusDeclined
		it.AggregatedOutput = out.SandboxError
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return out, "refused: the command was NOT run, because the sandbox could not be applied on the workspace host: " + out.SandboxError, true
	}
	return out, "", false
}

// execInput is a command as the workspace host runs it, in the thread's
// sandbox unless a person approved running it without.
func (t *turn) execInput(callID string, argv []string, cwd string, unsandboxed bool) activities.ExecInput {
	cfg := t.in.Config
	in := activities.ExecInput{ThreadID: t.in.ThreadID, CallID: callID, Command: argv,
		Cwd: cwd, MaxOutput: cfg.MaxToolOutput,
		SandboxMode: cfg.SandboxMode, EnvPolicy: cfg.EnvPolicy, Unsandboxed: unsandboxed}
	if cfg.SandboxMode != string(sandbox.DangerFullAccess) {
		in.WorkspaceRoot, in.WritableRoots, in.NetworkAccess = cfg.Cwd, cfg.WritableRoots, cfg.NetworkAccess
	}
	return in
}

// finishExec completes a command item with its outcome.
func (t *turn) finishExec(it *Item, out activities.ExecOutput) string {
	exit := out.ExitCode
	it.ExitCode, it.DurationMs = &exit, out.DurationMs
	it.AggregatedOutput = out.Output
	it.Status = StatusCompleted
	if exit != 0 {
		it.Status = StatusFailed
	}
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	return fmt.Sprintf("Exit code: %d\nWall time: %.1f seconds\nOutput:\n%s", exit, float64(out.DurationMs)/1000, out.Output)
}

// runPatch applies a patch. One that would write outside the writable
// roots (or into .git or the interpreter home) under workspace-write asks
// a person, showing the diff; under never it is refused.
func (t *turn) runPatch(ctx workflow.Context, c activities.DecodedCall) string {
	cfg := t.in.Config
	it := t.newItem(ItemFileChange)
	it.Status = StatusInProgress
	t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})
	in := activities.PatchInput{ThreadID: t.in.ThreadID, CallID: c.Call.CallID, Cwd: cfg.Cwd, Patch: c.Inv.Patch,
		SandboxMode: cfg.SandboxMode, WritableRoots: cfg.WritableRoots}
	out, err := t.patch(ctx, c, in)
	if err == nil && out.NeedsApproval {
		policy := sandbox.Policy(cfg.ApprovalPolicy)
		prefix := "apply_patch: " + out.Path
		switch {
		case policy == sandbox.Never || policy == "":
			out.Output += "\nIt needs a person's approval, and the approval policy is \"never\"."
		case t.sessionApproved(prefix, true):
			in.Unsandboxed = true
			out, err = t.patch(ctx, c, in)
		default:
			d, note := t.ask(ctx, it, Approval{Kind: "patch", Cwd: cfg.Cwd, Diff: out.Diff, Unsandboxed: true,
				Reason: strings.TrimPrefix(out.Output, "patch not applied, nothing was changed: ")}, prefix)
			if d != DecisionApprove && d != DecisionApproveForSession {
				return t.declined(it, d, note, "The patch")
			}
			in.Unsandboxed = true
			out, err = t.patch(ctx, c, in)
		}
	}
	if err != nil {
		it.Status = StatusFailed
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "error: applying the patch failed: " + rootMessage(err)
	}
	for _, ch := range out.Changes {
		it.Changes = append(it.Changes, FileChange{Path: ch.Path, Kind: ch.Kind})
	}
	it.Status = StatusCompleted
	if !out.Success {
		it.Status = StatusFailed
	}
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	return out.Output
}

// runFileTool runs read, write, edit, list, glob or grep on the workspace
// host. Reads leave no item; writes and edits are file changes. Every file
// tool is idempotent (see [activities.Activities.FileTool]), so it is
// retried.
func (t *turn) runFileTool(ctx workflow.Context, c activities.DecodedCall, reply func(string) harness.Entry) harness.Entry {
	cfg := t.in.Config
	inv := c.Inv
	changes := inv.Tool == harness.ToolWrite || inv.Tool == harness.ToolEdit
	var it *Item
	if changes {
		it = t.newItem(ItemFileChange)
		it.Changes = []FileChange{{Path: inv.Path, Kind: "update"}}
		if cfg.SandboxMode == string(sandbox.ReadOnly) {
			it.Status = StatusDeclined
			t.log.add(Event{Type: EventItemCompleted, Item: it})
			e := reply(fmt.Sprintf("declined: the sandbox is read-only; %s %s was not changed.", inv.Tool, inv.Path))
			e.Error = true
			return e
		}
		it.Status = StatusInProgress
		t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})
	}
	opts := workflow.ActivityOptions{
		TaskQueue:           cfg.HostQueue,
		StartToCloseTimeout: 5 * time.Minute,
		Summary:             oneLine(inv.Tool+" · "+fileToolSubject(inv), 120),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	}
	in := activities.FileToolInput{ThreadID: t.in.ThreadID, CallID: c.Call.CallID, Cwd: cfg.Cwd, Inv: inv, MaxOutput: cfg.MaxToolOutput}
	if inv.Tool == harness.ToolRead {
		in.MaxOutput = 0 // reads have their own, larger bound
	}
	var out activities.FileToolOutput
	if err := t.onHost(ctx, opts, acts.FileTool, in, &out); err != nil {
		if it != nil {
			it.Status = StatusFailed
			t.log.add(Event{Type: EventItemCompleted, Item: it})
		}
		e := reply(fmt.Sprintf("error: %s failed: %s", inv.Tool, rootMessage(err)))
		e.Error = true
		return e
	}
	if it != nil {
		if len(out.Changes) > 0 {
			it.Changes = nil
			for _, ch := range out.Changes {
				it.Changes = append(it.Changes, FileChange{Path: ch.Path, Kind: ch.Kind})
			}
		}
		it.Status = StatusCompleted
		if !out.Success {
			it.Status = StatusFailed
		}
		t.log.add(Event{Type: EventItemCompleted, Item: it})
	}
	e := reply(out.Output)
	e.Error = !out.Success
	return e
}

func fileToolSubject(inv harness.Invocation) string {
	switch inv.Tool {
	case harness.ToolGlob, harness.ToolGrep:
		if inv.Path != "" {
			return inv.Pattern + " in " + inv.Path
		}
		return inv.Pattern
	case harness.ToolList:
		if inv.Path == "" {
			return "."
		}
	}
	return inv.Path
}

func (t *turn) patch(ctx workflow.Context, c activities.DecodedCall, in activities.PatchInput) (activities.PatchOutput, error) {
	opts := workflow.ActivityOptions{
		TaskQueue:           t.in.Config.HostQueue,
		StartToCloseTimeout: time.Minute,
		Summary:             "apply_patch · " + patchSummary(c.Inv.Patch),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	}
	var out activities.PatchOutput
	err := t.onHost(ctx, opts, acts.ApplyPatch, in, &out)
	return out, err
}

func (t *turn) updatePlan(c activities.DecodedCall) string {
	it := t.newItem(ItemTodoList)
	for _, s := range c.Inv.Plan {
		it.Items = append(it.Items, TodoItem{Text: s.Step, Completed: s.Status == "completed"})
	}
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	return "Plan updated"
}

func patchSummary(p string) string {
	var files []string
	for _, line := range strings.Split(p, "\n") {
		for _, pre := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if strings.HasPrefix(line, pre) {
				files = append(files, strings.TrimSpace(strings.TrimPrefix(line, pre)))
			}
		}
	}
	return oneLine(strings.Join(files, ", "), 100)
}

func copyItem(it *Item) *Item {
	c := *it
	return &c
}
