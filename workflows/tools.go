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
	switch c.Inv.Tool {
	case harness.ToolShell:
		return reply(t.runShell(ctx, c))
	case harness.ToolPatch:
		return reply(t.runPatch(ctx, c))
	case harness.ToolPlan:
		return reply(t.updatePlan(c))
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
func (t *turn) runShell(ctx workflow.Context, c activities.DecodedCall) string {
	cfg := t.in.Config
	cmd := commandString(c.Inv.Command)
	it := t.newItem(ItemCommandExecution)
	it.Command, it.Cwd, it.Status = cmd, t.workdir(c.Inv.Workdir), StatusInProgress
	if sandbox.Decide(sandbox.Policy(cfg.ApprovalPolicy), c.Inv.Command) == sandbox.Ask {
		// The durable approval wait is the seam for approvals; until a front
		// end can answer, asking means declining, and the model is told.
		it.Status = StatusDeclined
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return fmt.Sprintf("declined: approval policy %q requires a person's approval for this command, and none can be asked here. "+
			"Use read-only commands, or ask the user to change the approval policy.", cfg.ApprovalPolicy)
	}
	t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})

	hb := cfg.ExecHeartbeat
	if hb <= 0 {
		hb = 5 * time.Second
	}
	timeout := 24 * time.Hour
	if c.Inv.TimeoutMs > 0 {
		timeout = time.Duration(c.Inv.TimeoutMs)*time.Millisecond + time.Minute
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           cfg.HostQueue,
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    hb,
		WaitForCancellation: true,
		Summary:             "exec: " + oneLine(cmd, 120),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	in := activities.ExecInput{ThreadID: t.in.ThreadID, CallID: c.Call.CallID, Command: c.Inv.Command,
		Cwd: it.Cwd, TimeoutMs: c.Inv.TimeoutMs, MaxOutput: cfg.MaxToolOutput,
		SandboxMode: cfg.SandboxMode, EnvPolicy: cfg.EnvPolicy}
	if cfg.SandboxMode != string(sandbox.DangerFullAccess) {
		in.WorkspaceRoot, in.WritableRoots, in.NetworkAccess = cfg.Cwd, cfg.WritableRoots, cfg.NetworkAccess
	}
	var out activities.ExecOutput
	err := workflow.ExecuteActivity(actx, acts.Exec, in).Get(ctx, &out)
	switch {
	case err != nil && ctx.Err() != nil:
		it.Status = StatusInterrupted
		it.AggregatedOutput = out.Output
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "command interrupted: the turn was stopped while it ran"
	case err != nil && isTimeout(err):
		it.Status = StatusInterrupted
		it.AggregatedOutput = "[interrupted: the worker running this command stopped; the outcome is unknown and it was not run again]"
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "The command was interrupted: the worker running it stopped before it finished. " +
			"Its outcome is unknown (it may have partly run) and it was NOT run again. Check the state before retrying it."
	case err != nil:
		it.Status = StatusFailed
		it.AggregatedOutput = rootMessage(err)
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "error: could not run the command: " + rootMessage(err)
	}
	if out.SandboxError != "" {
		it.Status = StatusDeclined
		it.AggregatedOutput = out.SandboxError
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "refused: the command was NOT run, because the sandbox could not be applied on the workspace host: " + out.SandboxError
	}
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

func (t *turn) runPatch(ctx workflow.Context, c activities.DecodedCall) string {
	it := t.newItem(ItemFileChange)
	it.Status = StatusInProgress
	t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           t.in.Config.HostQueue,
		StartToCloseTimeout: time.Minute,
		Summary:             "apply_patch · " + patchSummary(c.Inv.Patch),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	in := activities.PatchInput{ThreadID: t.in.ThreadID, CallID: c.Call.CallID, Cwd: t.in.Config.Cwd, Patch: c.Inv.Patch,
		SandboxMode: t.in.Config.SandboxMode, WritableRoots: t.in.Config.WritableRoots}
	var out activities.PatchOutput
	if err := workflow.ExecuteActivity(actx, acts.ApplyPatch, in).Get(ctx, &out); err != nil {
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
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           cfg.HostQueue,
		StartToCloseTimeout: 5 * time.Minute,
		Summary:             oneLine(inv.Tool+" · "+fileToolSubject(inv), 120),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	in := activities.FileToolInput{ThreadID: t.in.ThreadID, CallID: c.Call.CallID, Cwd: cfg.Cwd, Inv: inv, MaxOutput: cfg.MaxToolOutput}
	if inv.Tool == harness.ToolRead {
		in.MaxOutput = 0 // reads have their own, larger bound
	}
	var out activities.FileToolOutput
	if err := workflow.ExecuteActivity(actx, acts.FileTool, in).Get(ctx, &out); err != nil {
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
