package workflows

import (
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

func dynamicCall(callID, name, args string) activities.DecodedCall {
	return activities.DecodedCall{
		Call: harness.ToolCall{CallID: callID, Name: name, Arguments: args},
		Inv:  harness.Invocation{Tool: harness.ToolExternal, External: name, Arguments: args},
	}
}

func dynamicConfig() ThreadConfig {
	cfg := testConfig()
	cfg.DynamicTools = []harness.ExternalTool{{Name: "lookup_ticket", Description: "Look a ticket up", Source: harness.SourceDynamic, Tool: "lookup_ticket",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}}}}
	return cfg
}

// dynamicEnv is a turn whose model calls the given tools once, then
// answers "done".
func dynamicEnv(t *testing.T, calls ...activities.DecodedCall) (*testsuite.TestWorkflowEnvironment, *fakeModel) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", calls...), nil
		}
		return answer(n, "done"), nil
	}}
	mockModel(env, model)
	return env, model
}

// updates collects the outcomes of updates sent in callbacks (the test
// environment runs them asynchronously).
type updates struct {
	mu   sync.Mutex
	errs map[string]error
	vals map[string]any
}

func (u *updates) send(env *testsuite.TestWorkflowEnvironment, name, update string, arg any) {
	u.mu.Lock()
	if u.errs == nil {
		u.errs, u.vals = map[string]error{}, map[string]any{}
	}
	u.errs[name] = nil
	u.mu.Unlock()
	updateSeq++
	env.UpdateWorkflow(update, "u-"+itoa(updateSeq), &testsuite.TestUpdateCallback{
		OnReject: func(err error) { u.mu.Lock(); u.errs[name] = err; u.mu.Unlock() },
		OnAccept: func() {},
		OnComplete: func(v any, err error) {
			u.mu.Lock()
			u.vals[name] = v
			if err != nil {
				u.errs[name] = err
			}
			u.mu.Unlock()
		},
	}, arg)
}

func (u *updates) err(name string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.errs[name]
}

func pendingDynamic(t *testing.T, env *testsuite.TestWorkflowEnvironment) []DynamicCall {
	t.Helper()
	v, err := env.QueryWorkflow(QueryDynamicCalls)
	require.NoError(t, err)
	var out []DynamicCall
	require.NoError(t, v.Get(&out))
	return out
}

func TestDynamicToolCallWaitsForTheAnswer(t *testing.T) {
	env, model := dynamicEnv(t, dynamicCall("c1", "lookup_ticket", `{"id":"ABC-1"}`))
	var waiting []DynamicCall
	var u updates
	env.RegisterDelayedCallback(func() {
		waiting = pendingDynamic(t, env)
		u.send(env, "thread", UpdateAnswerDynamic, DynamicAnswer{ThreadID: "other", ItemID: "item_0", Success: true})
		u.send(env, "item", UpdateAnswerDynamic, DynamicAnswer{ThreadID: testThreadID, ItemID: "item_9", Success: true})
		u.send(env, "ok", UpdateAnswerDynamic, DynamicAnswer{ThreadID: testThreadID, ItemID: "item_0", Success: true,
			Content: []DynamicContent{{Type: "inputText", Text: "ABC-1 is open"}, {Type: "inputImage", ImageURL: "https://x/y.png"}}})
		u.send(env, "twice", UpdateAnswerDynamic, DynamicAnswer{ThreadID: testThreadID, ItemID: "item_0", Success: true})
	}, 3*time.Minute)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(dynamicConfig()))
	require.ErrorContains(t, u.err("thread"), `names thread "other"`)
	require.ErrorContains(t, u.err("item"), "item item_9 of thread th is not waiting for an answer (pending: item_0)")
	require.NoError(t, u.err("ok"))
	require.ErrorContains(t, u.err("twice"), "answer refused", "answered already: refused")

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Len(t, waiting, 1)
	w := waiting[0]
	require.Equal(t, DynamicCall{ThreadID: testThreadID, TurnID: testTurnID, ItemID: "item_0", CallID: "c1", Tool: "lookup_ticket",
		Arguments: `{"id":"ABC-1"}`, RequestedAt: w.RequestedAt, Deadline: w.Deadline}, w)
	require.Equal(t, w.RequestedAt.Add(DefaultDynamicToolTimeout), *w.Deadline)
	out := toolOutput(t, model.calls()[1].Append, "c1")
	require.False(t, out.Error)
	require.Equal(t, "ABC-1 is open\n[image: https://x/y.png]", out.Text)
	require.Equal(t, []harness.ExternalTool(dynamicConfig().DynamicTools), model.calls()[0].External, "the tool is offered")

	ev := queryEvents(t, env).Events
	require.Equal(t, []string{"turn.started", "item.started:dynamic_tool_call", "dynamic_tool.requested:dynamic_tool_call",
		"item.completed:dynamic_tool_call", "item.completed:agent_message", "turn.completed"}, eventKinds(ev))
	done := ev[3].Item
	require.Equal(t, StatusCompleted, done.Status)
	require.True(t, done.Dynamic.Success && done.Dynamic.Resolved)
	require.Equal(t, int64(3*time.Minute/time.Millisecond), done.Dynamic.DurationMs)
	require.Empty(t, pendingDynamic(t, env))
}

// No answer within the timeout, a client error, an unknown tool: each is
// a failed tool result, and the turn goes on.
func TestDynamicToolFailuresAreToolResults(t *testing.T) {
	env, model := dynamicEnv(t, dynamicCall("c1", "lookup_ticket", ``), dynamicCall("c2", "lookup_ticket", `{}`), dynamicCall("c3", "nope", `{}`))
	cfg := dynamicConfig()
	cfg.DynamicToolTimeout = time.Minute
	var u updates
	env.RegisterDelayedCallback(func() {
		// The first call timed out at 1m; the second waits.
		u.send(env, "err", UpdateAnswerDynamic, DynamicAnswer{ThreadID: testThreadID, ItemID: "item_1", Error: "client answered -32000: no such ticket"})
	}, 90*time.Second)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	require.NoError(t, u.err("err"))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	app := model.calls()[1].Append
	o1, o2, o3 := toolOutput(t, app, "c1"), toolOutput(t, app, "c2"), toolOutput(t, app, "c3")
	require.True(t, o1.Error && o2.Error && o3.Error)
	require.Equal(t, "error: tool lookup_ticket failed: no answer from the client within 1m0s", o1.Text)
	require.Equal(t, "error: tool lookup_ticket failed: client answered -32000: no such ticket", o2.Text)
	require.Contains(t, o3.Text, `tool "nope" is not available`)
	items := itemEvents(queryEvents(t, env).Events, ItemDynamicToolCall)
	require.Equal(t, "{}", items[0].Item.Dynamic.Arguments, "empty arguments are an empty object")
	require.Equal(t, StatusFailed, items[2].Item.Status)
	require.Equal(t, StatusFailed, items[len(items)-1].Item.Status)
}

func TestDynamicToolWaitEndsOnInterrupt(t *testing.T) {
	env, _ := dynamicEnv(t, dynamicCall("c1", "lookup_ticket", `{}`))
	env.RegisterDelayedCallback(func() { env.CancelWorkflow() }, time.Minute)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(dynamicConfig()))
	res := turnResult(t, env)
	require.Equal(t, StatusInterrupted, res.Status)
	items := itemEvents(queryEvents(t, env).Events, ItemDynamicToolCall)
	last := items[len(items)-1].Item
	require.Equal(t, StatusFailed, last.Status)
	require.Contains(t, last.Dynamic.Error, "interrupted")
	require.Equal(t, "c1", res.Unsent[0].CallID, "the model reads the failed call next turn")
}

// Input steered into a running turn reaches the model's next call after
// the tool outputs, shows as a user_message item, and survives
// continue-as-new.
func TestSteerAddsInputToTheRunningTurn(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", shellCall("c1", "make")), nil
		}
		return answer(n, "done"), nil
	}}
	mockModel(env, model)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(2*time.Minute).Return(&activities.ExecOutput{ExitCode: 0, Output: "built"}, nil)
	var u updates
	env.RegisterDelayedCallback(func() {
		u.send(env, "other", UpdateSteer, SteerRequest{ThreadID: testThreadID, TurnID: "th/turn-2", Prompt: "x"})
		u.send(env, "empty", UpdateSteer, SteerRequest{ThreadID: testThreadID, TurnID: testTurnID, Prompt: "  "})
		u.send(env, "ok", UpdateSteer, SteerRequest{ThreadID: testThreadID, TurnID: testTurnID, Prompt: "also update the changelog"})
	}, time.Minute)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))
	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.ErrorContains(t, u.err("other"), "expected active turn id `th/turn-2` but found `th/turn-1`")
	require.ErrorContains(t, u.err("empty"), "empty")
	require.NoError(t, u.err("ok"))
	require.Equal(t, SteerResponse{TurnID: testTurnID, ItemID: "item_1"}, u.vals["ok"])
	app := model.calls()[1].Append
	require.Len(t, app, 2)
	require.Equal(t, "c1", app[0].CallID)
	require.Equal(t, harness.Entry{Kind: harness.KindUser, Text: "also update the changelog"}, app[1])
	users := itemEvents(queryEvents(t, env).Events, ItemUserMessage)
	require.Len(t, users, 1)
	require.Equal(t, "also update the changelog", users[0].Item.Text)
}

// Input steered in during the model's final answer makes the turn go on.
func TestSteerDuringTheLastModelCallContinuesTheTurn(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "answer "+itoa(n)), nil
	}}
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).After(time.Minute).Return(model.CallModel)
	var u updates
	env.RegisterDelayedCallback(func() {
		u.send(env, "ok", UpdateSteer, SteerRequest{ThreadID: testThreadID, TurnID: testTurnID, Prompt: "and one more thing"})
	}, 30*time.Second)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))
	require.NoError(t, u.err("ok"))
	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Equal(t, "answer 2", res.FinalMessage)
	calls := model.calls()
	require.Len(t, calls, 2)
	require.Equal(t, "and one more thing", calls[1].Append[0].Text)
}

// Steered input survives continue-as-new: it is part of the turn's state.
func TestSteersAreCarriedAcrossContinueAsNew(t *testing.T) {
	var st TurnState
	st.Steers = []string{"carried"}
	st.Step = 1
	in := turnInput(testConfig())
	in.State = &st
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) { return answer(n, "ok"), nil }}
	mockModel(env, model)
	env.ExecuteWorkflow(TurnWorkflow, in)
	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	require.Equal(t, "carried", model.calls()[0].Append[len(model.calls()[0].Append)-1].Text)
}

// The stall timeout fails a turn whose log did not grow for that long;
// a wait for an approval does not count.
func TestStallTimeoutFailsTheTurn(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", shellCall("c1", "make")), nil
		}
		return answer(n, "done"), nil
	}}
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).After(20 * time.Second).Return(model.CallModel)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(5*time.Minute).Return(&activities.ExecOutput{ExitCode: 0}, nil)
	cfg := testConfig()
	cfg.StallTimeout = time.Minute
	start := env.Now()
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	res := turnResult(t, env)
	require.Equal(t, StatusFailed, res.Status)
	require.Equal(t, "turn stalled: no event for 1m0s (stall timeout)", res.Error)
	took := env.Now().Sub(start)
	require.True(t, took >= 80*time.Second && took < 2*time.Minute, "failed after %s", took)
	ev := queryEvents(t, env).Events
	require.Equal(t, EventTurnFailed, ev[len(ev)-1].Type)
}

func TestStallTimeoutDoesNotCountApprovalWaits(t *testing.T) {
	env, _, exec, _ := approvalEnv(t, shellCall("c1", "make build"))
	cfg := untrusted()
	cfg.StallTimeout = time.Minute
	env.RegisterDelayedCallback(func() { require.NoError(t, decide(env, testThreadID, "item_0", DecisionApprove)) }, time.Hour)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status, res.Error)
	require.Len(t, exec.calls(), 1)
}

func TestStallTimeoutOffByDefault(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) { return answer(n, "slow"), nil }}
	env.OnActivity(a.CallModel, mock.Anything, mock.Anything).After(3 * time.Hour).Return(model.CallModel)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))
	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.True(t, strings.Contains(res.FinalMessage, "slow"))
}
