package workflows

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// notices records the approval notices a turn sends.
type notices struct {
	mu  sync.Mutex
	got []activities.NotifyInput
}

func (n *notices) NotifyApproval(_ context.Context, in activities.NotifyInput) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, in)
	return nil
}

func (n *notices) all() []activities.NotifyInput {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]activities.NotifyInput(nil), n.got...)
}

// approvalEnv is a turn whose model asks for the given calls once, then
// answers "done".
func approvalEnv(t *testing.T, calls ...activities.DecodedCall) (*testsuite.TestWorkflowEnvironment, *fakeModel, *fakeExec, *notices) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", calls...), nil
		}
		return answer(n, "done"), nil
	}}
	exec := &fakeExec{}
	nt := &notices{}
	mockModel(env, model)
	mockExec(env, exec)
	env.OnActivity(a.NotifyApproval, mock.Anything, mock.Anything).Return(nt.NotifyApproval)
	return env, model, exec, nt
}

func untrusted() ThreadConfig {
	cfg := testConfig()
	cfg.ApprovalPolicy, cfg.SandboxMode = "untrusted", "workspace-write"
	return cfg
}

var updateSeq int

// decide sends a decision as a client would, and returns the error of a
// refused one.
func decide(env *testsuite.TestWorkflowEnvironment, threadID, itemID, decision string) error {
	var rejected error
	updateSeq++
	env.UpdateWorkflow(UpdateDecideApproval, "decide-"+itoa(updateSeq), &testsuite.TestUpdateCallback{
		OnReject:   func(err error) { rejected = err },
		OnAccept:   func() {},
		OnComplete: func(any, error) {},
	}, ApprovalDecision{ThreadID: threadID, ItemID: itemID, Decision: decision})
	return rejected
}

func pending(t *testing.T, env *testsuite.TestWorkflowEnvironment) []Approval {
	t.Helper()
	v, err := env.QueryWorkflow(QueryApprovals)
	require.NoError(t, err)
	var out []Approval
	require.NoError(t, v.Get(&out))
	return out
}

func TestApprovalApproveRunsTheCommand(t *testing.T) {
	env, model, exec, nt := approvalEnv(t, shellCall("c1", "make build"))
	var waiting []Approval
	env.RegisterDelayedCallback(func() {
		waiting = pending(t, env)
		require.Empty(t, exec.calls(), "nothing runs before the decision")
		require.NoError(t, decide(env, testThreadID, "item_0", DecisionApprove))
	}, time.Hour)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(untrusted()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Len(t, waiting, 1)
	w := waiting[0]
	require.Equal(t, testThreadID, w.ThreadID)
	require.Equal(t, testTurnID, w.TurnID)
	require.Equal(t, "item_0", w.ItemID)
	require.Equal(t, "make build", w.Command)
	require.Equal(t, "/work", w.Cwd)
	require.Contains(t, w.Reason, "untrusted")
	require.Equal(t, "interpreter approve th item_0 --decision approve|approve_for_session|deny|abort", w.Answer)
	require.Len(t, exec.calls(), 1)
	require.False(t, exec.calls()[0].Unsandboxed)
	require.Len(t, nt.all(), 1)
	require.Equal(t, "make build", nt.all()[0].Notice.Command)
	require.Contains(t, toolOutput(t, model.calls()[1].Append, "c1").Text, "Exit code: 0")

	ev := queryEvents(t, env).Events
	require.Equal(t, []string{"turn.started", "approval.requested:command_execution", "approval.resolved:command_execution",
		"item.started:command_execution", "item.completed:command_execution", "item.completed:agent_message", "turn.completed"}, eventKinds(ev))
	require.Equal(t, StatusAwaitingApproval, ev[1].Item.Status)
	require.Equal(t, DecisionApprove, ev[2].Approval.Decision)
	require.Empty(t, pending(t, env))
}

func TestApprovalDenyTellsTheModel(t *testing.T) {
	env, model, exec, _ := approvalEnv(t, shellCall("c1", "make build"))
	env.RegisterDelayedCallback(func() { require.NoError(t, decide(env, testThreadID, "item_0", DecisionDeny)) }, time.Minute)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(untrusted()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Empty(t, exec.calls())
	out := toolOutput(t, model.calls()[1].Append, "c1")
	require.Contains(t, out.Text, "was not run: the user declined it")
	items := itemEvents(queryEvents(t, env).Events, ItemCommandExecution)
	require.Equal(t, StatusDeclined, items[len(items)-1].Item.Status)
}

func TestApprovalAbortEndsTheTurn(t *testing.T) {
	env, model, exec, _ := approvalEnv(t, shellCall("c1", "make build"), shellCall("c2", "make test"))
	env.RegisterDelayedCallback(func() { require.NoError(t, decide(env, testThreadID, "item_0", DecisionAbort)) }, time.Minute)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(untrusted()))

	res := turnResult(t, env)
	require.Equal(t, StatusInterrupted, res.Status)
	require.Contains(t, res.Error, "aborted by the user")
	require.Empty(t, exec.calls())
	require.Len(t, model.calls(), 1, "the model is not called again")
	// Both calls have outputs for the next turn.
	require.Contains(t, toolOutput(t, res.Unsent, "c1").Text, "stopped the turn")
	require.Contains(t, toolOutput(t, res.Unsent, "c2").Text, "not run")
}

func TestApprovalForSessionCoversTheSamePrefix(t *testing.T) {
	env, _, exec, nt := approvalEnv(t, shellCall("c1", "pytest -x"), shellCall("c2", "pytest tests/a.py"), shellCall("c3", "go vet ./..."))
	env.RegisterDelayedCallback(func() {
		require.NoError(t, decide(env, testThreadID, "item_0", DecisionApproveForSession))
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		// pytest ran again without asking; go vet asks.
		p := pending(t, env)
		require.Len(t, p, 1)
		require.Equal(t, "go vet ./...", p[0].Command)
		require.NoError(t, decide(env, testThreadID, p[0].ItemID, DecisionDeny))
	}, 2*time.Minute)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(untrusted()))

	res := turnResult(t, env)
	require.Len(t, exec.calls(), 2)
	require.Len(t, nt.all(), 2)
	require.Equal(t, []SessionApproval{{Prefix: "pytest"}}, res.SessionApprovals)

	// A later turn of the thread carries it.
	env2, _, exec2, nt2 := approvalEnv(t, shellCall("c9", "pytest -k slow"))
	in := turnInput(untrusted())
	in.SessionApprovals = res.SessionApprovals
	env2.ExecuteWorkflow(TurnWorkflow, in)
	require.Equal(t, StatusCompleted, turnResult(t, env2).Status)
	require.Len(t, exec2.calls(), 1)
	require.Empty(t, nt2.all(), "nothing was asked")
}

// TestForgedDecisionsAreRefused: a decision for another thread, for an
// item that is not pending, or that is not a decision, is refused and
// changes nothing: the approval still waits and a proper answer works.
func TestForgedDecisionsAreRefused(t *testing.T) {
	env, _, exec, _ := approvalEnv(t, shellCall("c1", "make build"), shellCall("c2", "make test"))
	var mu sync.Mutex
	errs := map[string]error{}
	send := func(name, thread, item, decision string) {
		updateSeq++
		env.UpdateWorkflow(UpdateDecideApproval, "decide-"+itoa(updateSeq), &testsuite.TestUpdateCallback{
			OnReject: func(err error) { mu.Lock(); errs[name] = err; mu.Unlock() },
			OnAccept: func() {}, OnComplete: func(any, error) {},
		}, ApprovalDecision{ThreadID: thread, ItemID: item, Decision: decision})
	}
	var still []Approval
	env.RegisterDelayedCallback(func() {
		send("thread", "another-thread", "item_0", DecisionApprove)
		send("item", testThreadID, "item_7", DecisionApprove)
		send("decision", testThreadID, "item_0", "yes please")
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		still = pending(t, env)
		send("ok", testThreadID, "item_0", DecisionApprove)
		send("twice", testThreadID, "item_0", DecisionDeny)
	}, 2*time.Minute)
	env.RegisterDelayedCallback(func() {
		send("resolved", testThreadID, "item_0", DecisionApprove)
		send("ok2", testThreadID, "item_1", DecisionDeny)
	}, 3*time.Minute)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(untrusted()))

	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	mu.Lock()
	defer mu.Unlock()
	require.ErrorContains(t, errs["thread"], `names thread "another-thread", but this turn belongs to thread th`)
	require.ErrorContains(t, errs["item"], "item item_7 of thread th is not waiting for approval (pending: item_0)")
	require.ErrorContains(t, errs["decision"], `unknown decision "yes please"`)
	// Already decided, or already resolved: refused either way.
	require.ErrorContains(t, errs["twice"], "decision refused")
	require.ErrorContains(t, errs["resolved"], "item item_0 of thread th is not waiting for approval (pending: item_1)")
	require.NoError(t, errs["ok"])
	require.NoError(t, errs["ok2"])
	require.Len(t, still, 1, "the refused decisions changed nothing")
	require.Equal(t, "item_0", still[0].ItemID)
	require.Len(t, exec.calls(), 1, "make build ran once, after the real decision; make test was denied")
	var resolved []string
	for _, e := range queryEvents(t, env).Events {
		if e.Type == EventApprovalResolved {
			resolved = append(resolved, e.Approval.ItemID+"="+e.Approval.Decision)
		}
	}
	require.Equal(t, []string{"item_0=approve", "item_1=deny"}, resolved)
}

func TestApprovalTimeoutAppliesTheDefault(t *testing.T) {
	for _, def := range []string{"", DecisionApprove} {
		env, model, exec, nt := approvalEnv(t, shellCall("c1", "make build"))
		cfg := untrusted()
		cfg.ApprovalTimeout, cfg.ApprovalDefault = 10*time.Minute, def
		start := env.Now()
		env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
		require.Equal(t, StatusCompleted, turnResult(t, env).Status)
		require.GreaterOrEqual(t, env.Now().Sub(start), 10*time.Minute)
		require.NotEmpty(t, nt.all()[0].Notice.Deadline)
		out := toolOutput(t, model.calls()[1].Append, "c1").Text
		if def == "" {
			require.Empty(t, exec.calls())
			require.Contains(t, out, "no decision within 10m0s; the default decision (deny) applied")
		} else {
			require.Len(t, exec.calls(), 1)
		}
	}
}

func escalatedCall(callID, script string) activities.DecodedCall {
	c := shellCall(callID, script)
	c.Inv.Escalate, c.Inv.Justification = true, "needs the network"
	return c
}

func TestEscalationOnRequestAsksAndRunsUnsandboxed(t *testing.T) {
	env, _, exec, _ := approvalEnv(t, escalatedCall("c1", "npm install"))
	var w []Approval
	env.RegisterDelayedCallback(func() {
		w = pending(t, env)
		require.NoError(t, decide(env, testThreadID, "item_0", DecisionApprove))
	}, time.Minute)
	cfg := testConfig()
	cfg.ApprovalPolicy, cfg.SandboxMode = "on-request", "workspace-write"
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	require.Len(t, w, 1)
	require.True(t, w[0].Unsandboxed)
	require.Contains(t, w[0].Reason, "needs the network")
	require.Len(t, exec.calls(), 1)
	require.True(t, exec.calls()[0].Unsandboxed)
}

func TestEscalationUnderNeverIsRefused(t *testing.T) {
	env, model, exec, nt := approvalEnv(t, escalatedCall("c1", "npm install"))
	cfg := testConfig()
	cfg.ApprovalPolicy, cfg.SandboxMode = "never", "workspace-write"
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	require.Empty(t, exec.calls())
	require.Empty(t, nt.all())
	require.Contains(t, toolOutput(t, model.calls()[1].Append, "c1").Text, `refused: running a command without the sandbox needs a person's approval, and the approval policy is "never"`)
}

func TestOnFailureAsksToRerunUnsandboxed(t *testing.T) {
	env, model, exec, _ := approvalEnv(t, shellCall("c1", "touch /etc/x"))
	exec.result = func(in activities.ExecInput) (*activities.ExecOutput, error) {
		if in.Unsandboxed {
			return &activities.ExecOutput{Output: "ok\n"}, nil
		}
		return &activities.ExecOutput{ExitCode: 1, Output: "touch: cannot touch '/etc/x': Permission denied\n", Sandboxed: true, SandboxDenied: true}, nil
	}
	var w []Approval
	env.RegisterDelayedCallback(func() {
		w = pending(t, env)
		require.NoError(t, decide(env, testThreadID, "item_0", DecisionApprove))
	}, time.Minute)
	cfg := testConfig()
	cfg.ApprovalPolicy, cfg.SandboxMode = "on-failure", "workspace-write"
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	require.Len(t, w, 1)
	require.True(t, w[0].Unsandboxed)
	calls := exec.calls()
	require.Len(t, calls, 2)
	require.False(t, calls[0].Unsandboxed)
	require.True(t, calls[1].Unsandboxed)
	require.Equal(t, "c1-unsandboxed", calls[1].CallID)
	require.Contains(t, toolOutput(t, model.calls()[1].Append, "c1").Text, "Exit code: 0")
}

func TestPatchOutsideTheRootsAsksWithTheDiff(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+x\n*** End Patch"
	args, _ := json.Marshal(map[string]any{"input": patch})
	call := activities.DecodedCall{Call: harness.ToolCall{CallID: "p1", Name: "apply_patch", Arguments: string(args)},
		Inv: harness.Invocation{Tool: harness.ToolPatch, Patch: patch}}
	for _, decision := range []string{DecisionApprove, DecisionDeny} {
		env, model, _, _ := approvalEnv(t, call)
		var ins []activities.PatchInput
		env.OnActivity(a.ApplyPatch, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.PatchInput) (*activities.PatchOutput, error) {
			ins = append(ins, in)
			if !in.Unsandboxed {
				return &activities.PatchOutput{NeedsApproval: true, Path: "/work/.git/hooks/pre-commit", Diff: "+x\n",
					Output: "patch not applied, nothing was changed: /work/.git/hooks/pre-commit is inside the protected path /work/.git"}, nil
			}
			return &activities.PatchOutput{Success: true, Output: "Success.", Changes: []activities.FileChange{{Path: ".git/hooks/pre-commit", Kind: "add"}}}, nil
		})
		var w []Approval
		env.RegisterDelayedCallback(func() {
			w = pending(t, env)
			require.NoError(t, decide(env, testThreadID, "item_0", decision))
		}, time.Minute)
		cfg := testConfig()
		cfg.ApprovalPolicy, cfg.SandboxMode = "on-request", "workspace-write"
		env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
		require.Equal(t, StatusCompleted, turnResult(t, env).Status)
		require.Len(t, w, 1)
		require.Equal(t, "patch", w[0].Kind)
		require.Equal(t, "+x\n", w[0].Diff)
		require.Contains(t, w[0].Reason, "protected path")
		out := toolOutput(t, model.calls()[1].Append, "p1").Text
		if decision == DecisionApprove {
			require.Len(t, ins, 2)
			require.True(t, ins[1].Unsandboxed)
			require.Equal(t, "Success.", out)
		} else {
			require.Len(t, ins, 1)
			require.True(t, strings.HasPrefix(out, "The patch was not run: the user declined it"), out)
		}
	}
}

// TestThreadCarriesSessionApprovals: approve_for_session in one turn holds
// in the next turn of the thread, and the thread view shows it.
func TestThreadCarriesSessionApprovals(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n%2 == 1 {
			return withCalls(n, "", shellCall("c"+itoa(n), "pytest -k step"+itoa(n))), nil
		}
		return answer(n, "done"), nil
	}}
	mockModel(env, model)
	exec := &fakeExec{}
	mockExec(env, exec)
	nt := &notices{}
	env.OnActivity(a.NotifyApproval, mock.Anything, mock.Anything).Return(nt.NotifyApproval)
	var view ThreadView
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "first"}) }, 0)
	env.RegisterDelayedCallback(func() {
		var rejected error
		err := env.UpdateWorkflowByID(TurnWorkflowID(testThreadID, 1), UpdateDecideApproval, "", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { rejected = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
		}, ApprovalDecision{ThreadID: testThreadID, ItemID: "item_0", Decision: DecisionApproveForSession})
		require.NoError(t, err)
		require.NoError(t, rejected)
	}, time.Minute)
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "second"}) }, 2*time.Minute)
	env.RegisterDelayedCallback(func() {
		view = viewThread(t, env)
		env.CancelWorkflow()
	}, 3*time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: untrusted()})
	requireCanceled(t, env)

	require.Len(t, view.Turns, 2)
	require.Equal(t, StatusCompleted, view.Turns[1].Status)
	require.Len(t, exec.calls(), 2)
	require.Len(t, nt.all(), 1, "the second turn did not ask")
	require.Equal(t, []SessionApproval{{Prefix: "pytest"}}, view.SessionApprovals)
}

// A turn asking for an unknown sandbox mode or approval policy is refused
// with the valid names, and no turn starts.
func TestTurnWithUnknownModeOrPolicyIsRefused(t *testing.T) {
	env := newEnv(t)
	mockModel(env, &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "ok"), nil
	}})
	var mode, policy *turnStart
	env.RegisterDelayedCallback(func() {
		mode = startTurn(env, StartTurnRequest{Prompt: "hi", SandboxMode: "yolo"})
		policy = startTurn(env, StartTurnRequest{Prompt: "hi", ApprovalPolicy: "sometimes"})
	}, 0)
	var view ThreadView
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)
	require.ErrorContains(t, mode.rejected, "valid: read-only, workspace-write, danger-full-access")
	require.ErrorContains(t, policy.rejected, "valid: untrusted, on-failure, on-request, never")
	require.Empty(t, view.Turns)
}

// Interrupting the thread while a turn waits for approval ends the wait:
// the command does not run and the turn ends interrupted.
func TestInterruptDuringApprovalWait(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return withCalls(n, "", shellCall("c1", "make deploy")), nil
	}}
	mockModel(env, model)
	exec := &fakeExec{}
	mockExec(env, exec)
	env.OnActivity(a.NotifyApproval, mock.Anything, mock.Anything).Return(nil)
	var view ThreadView
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "deploy"}) }, 0)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(SignalInterrupt, nil) }, time.Hour)
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, 2*time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: untrusted()})
	requireCanceled(t, env)
	require.Len(t, view.Turns, 1)
	require.Equal(t, StatusInterrupted, view.Turns[0].Status)
	require.Empty(t, exec.calls())
	require.Contains(t, toolOutput(t, view.Turns[0].Unsent, "c1").Text, "interrupted while it waited for approval")
}
