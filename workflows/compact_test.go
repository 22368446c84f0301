package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// fakeCompact records compaction requests.
type fakeCompact struct {
	mu     sync.Mutex
	inputs []activities.CompactInput
	result func(in activities.CompactInput) (*activities.CompactOutput, error)
}

func (f *fakeCompact) Compact(_ context.Context, in activities.CompactInput) (*activities.CompactOutput, error) {
	f.mu.Lock()
	f.inputs = append(f.inputs, in)
	f.mu.Unlock()
	if f.result == nil {
		return &activities.CompactOutput{Transcript: "compacted", Summary: "the summary", TokensAfter: 40,
			Usage: harness.Usage{InputTokens: 900, OutputTokens: 30}}, nil
	}
	return f.result(in)
}

func (f *fakeCompact) calls() []activities.CompactInput {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]activities.CompactInput(nil), f.inputs...)
}

func mockCompact(env *testsuite.TestWorkflowEnvironment, f *fakeCompact) {
	env.OnActivity(a.Compact, mock.Anything, mock.Anything).Return(f.Compact)
}

// bigAnswer is a model answer that used in+out tokens.
func bigAnswer(out *activities.ModelOutput, in, outTokens int64) *activities.ModelOutput {
	out.Usage = harness.Usage{InputTokens: in, OutputTokens: outTokens}
	return out
}

func compactConfig() ThreadConfig {
	cfg := testConfig()
	cfg.ContextWindow = 1000
	cfg.AutoCompactTokenLimit = 500
	cfg.CompactPrompt = "squeeze it"
	return cfg
}

// Once a model call comes near the window, the next one is preceded by a
// compaction; the tool outputs the model has not read are folded into the
// summary, and the model goes on from the compacted transcript.
func TestTurnCompactsWhenNearTheWindow(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return bigAnswer(withCalls(n, "", shellCall("c1", "cat big.log")), 550, 20), nil
		}
		return bigAnswer(answer(n, "done"), 100, 10), nil
	}}
	compact := &fakeCompact{}
	mockModel(env, model)
	mockExec(env, &fakeExec{})
	mockCompact(env, compact)
	in := turnInput(compactConfig())
	in.Transcript = "tr-prev"
	env.ExecuteWorkflow(TurnWorkflow, in)

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	cs := compact.calls()
	require.Len(t, cs, 1)
	require.Equal(t, transcriptRef(1), cs[0].Transcript)
	require.Equal(t, "squeeze it", cs[0].Prompt, "the configured compact prompt is used")
	require.Len(t, cs[0].Fold, 1)
	require.Equal(t, "c1", cs[0].Fold[0].CallID)
	require.Equal(t, testTurnID, cs[0].TurnID)

	calls := model.calls()
	require.Len(t, calls, 2)
	require.Equal(t, "compacted", calls[1].Transcript, "the model goes on from the compacted transcript")
	require.Empty(t, calls[1].Append, "the tool output went into the summary")
	require.Equal(t, int64(110), res.ContextTokens)
	require.Equal(t, int64(550+20+900+30+100+10), res.Usage.InputTokens+res.Usage.OutputTokens, "the compaction's tokens count")

	page := queryEvents(t, env)
	items := itemEvents(page.Events, ItemContextCompaction)
	require.Len(t, items, 1)
	require.Equal(t, StatusCompleted, items[0].Item.Status)
	require.Equal(t, "the summary", items[0].Item.Text)
}

// At the start of a turn, a conversation already near the window is
// compacted before the prompt is sent; the prompt stays after the summary.
func TestTurnCompactsAtStart(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "ok"), nil
	}}
	compact := &fakeCompact{}
	mockModel(env, model)
	mockCompact(env, compact)
	in := turnInput(compactConfig())
	in.Transcript = "tr-prev"
	in.ContextTokens = 600
	env.ExecuteWorkflow(TurnWorkflow, in)

	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	require.Len(t, compact.calls(), 1)
	require.Empty(t, compact.calls()[0].Fold)
	calls := model.calls()
	require.Equal(t, "compacted", calls[0].Transcript)
	require.Equal(t, []harness.Entry{{Kind: harness.KindUser, Text: "do the thing"}}, calls[0].Append)
}

func TestTurnCompactionFails(t *testing.T) {
	failing := func(activities.CompactInput) (*activities.CompactOutput, error) {
		return nil, temporal.NewNonRetryableApplicationError("the model answered the compaction request without a summary",
			activities.ErrTypeCompaction, nil)
	}
	t.Run("the turn goes on uncompacted while it fits", func(t *testing.T) {
		env := newEnv(t)
		model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
			if n < 3 {
				return bigAnswer(withCalls(n, "", shellCall("c"+itoa(n), "true")), 600, 10), nil
			}
			return answer(n, "done"), nil
		}}
		compact := &fakeCompact{result: failing}
		mockModel(env, model)
		mockExec(env, &fakeExec{})
		mockCompact(env, compact)
		env.ExecuteWorkflow(TurnWorkflow, turnInput(compactConfig()))

		res := turnResult(t, env)
		require.Equal(t, StatusCompleted, res.Status)
		require.Len(t, compact.calls(), 1, "not tried again in the same turn")
		calls := model.calls()
		require.Len(t, calls, 3)
		require.Equal(t, transcriptRef(1), calls[1].Transcript)
		toolOutput(t, calls[1].Append, "c1")
		items := itemEvents(queryEvents(t, env).Events, ItemContextCompaction)
		require.Len(t, items, 1)
		require.Equal(t, StatusFailed, items[0].Item.Status)
		require.Contains(t, items[0].Item.Message, "without a summary")
	})
	t.Run("the turn fails clearly once it does not fit", func(t *testing.T) {
		env := newEnv(t)
		model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
			return bigAnswer(withCalls(n, "", shellCall("c"+itoa(n), "true")), 990, 20), nil
		}}
		mockModel(env, model)
		mockExec(env, &fakeExec{})
		mockCompact(env, &fakeCompact{result: failing})
		env.ExecuteWorkflow(TurnWorkflow, turnInput(compactConfig()))

		res := turnResult(t, env)
		require.Equal(t, StatusFailed, res.Status)
		require.Contains(t, res.Error, "no longer fits the context window of test-model (1000 tokens)")
		require.Contains(t, res.Error, "without a summary")
		require.Len(t, model.calls(), 1)
		require.Len(t, res.Unsent, 1, "the tool output is kept for the next turn")
	})
}

// thread.compact compacts an idle thread; the next turn starts from the
// compacted transcript. It is refused before there is anything to compact
// and while a turn runs.
func TestThreadCompactUpdate(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 2 {
			return withCalls(n, "", shellCall("c1", "sleep 1")), nil
		}
		return answer(n, "ok"), nil
	}}
	compact := &fakeCompact{}
	mockModel(env, model)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(10*time.Second).
		Return(&activities.ExecOutput{ExitCode: 0}, nil)
	mockCompact(env, compact)

	var empty, first, idle, second, busy *turnStart
	var compacted CompactResponse
	var afterCompact ThreadView
	sendCompact := func() *turnStart {
		o := &turnStart{}
		env.UpdateWorkflow(UpdateCompact, "", &testsuite.TestUpdateCallback{
			OnAccept: func() { o.accepted = true },
			OnReject: func(err error) { o.rejected = err },
			OnComplete: func(v any, err error) {
				o.done, o.err = true, err
				if r, ok := v.(CompactResponse); ok {
					compacted = r
				}
			},
		})
		return o
	}
	env.RegisterDelayedCallback(func() { empty = sendCompact() }, 0)
	env.RegisterDelayedCallback(func() { first = startTurn(env, StartTurnRequest{Prompt: "first"}) }, time.Second)
	env.RegisterDelayedCallback(func() { idle = sendCompact() }, time.Minute)
	env.RegisterDelayedCallback(func() {
		afterCompact = viewThread(t, env)
		second = startTurn(env, StartTurnRequest{Prompt: "second"})
	}, 2*time.Minute)
	env.RegisterDelayedCallback(func() { busy = sendCompact() }, 2*time.Minute+5*time.Second)
	env.RegisterDelayedCallback(func() { env.CancelWorkflow() }, 4*time.Minute)
	cfg := testConfig()
	cfg.CompactPrompt = "thread prompt"
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: cfg})
	requireCanceled(t, env)

	require.ErrorContains(t, empty.rejected, "no conversation to compact yet")
	requireAccepted(t, first, 1)
	require.NoError(t, idle.rejected)
	require.True(t, idle.done)
	require.NoError(t, idle.err)
	require.Equal(t, "the summary", compacted.Summary)
	require.Equal(t, int64(110), compacted.TokensBefore)
	require.Equal(t, int64(40), compacted.TokensAfter)
	require.Equal(t, "compacted", afterCompact.Transcript)
	require.Equal(t, int64(40), afterCompact.ContextTokens)
	cs := compact.calls()
	require.Len(t, cs, 1)
	require.Equal(t, transcriptRef(1), cs[0].Transcript)
	require.Equal(t, "thread prompt", cs[0].Prompt)
	require.Empty(t, cs[0].TurnID)

	requireAccepted(t, second, 2)
	require.ErrorContains(t, busy.rejected, "is running turn th/turn-2")
	calls := model.calls()
	require.Equal(t, "compacted", calls[1].Transcript, "the next turn starts from the compacted transcript")
}

func TestContextWindowDefaults(t *testing.T) {
	require.Equal(t, int64(272000), ContextWindow("gpt-5.1"))
	require.Equal(t, int64(200000), ContextWindow("claude-sonnet-4-5"))
	require.Equal(t, int64(131072), ContextWindow("openai/gpt-oss-20b"))
	require.Equal(t, int64(DefaultContextWindow), ContextWindow("fake-model"))
	c := withCompactDefaults(ThreadConfig{Model: "gpt-5.1"})
	require.Equal(t, int64(272000), c.ContextWindow)
	require.Equal(t, int64(217600), c.AutoCompactTokenLimit)
	c = withCompactDefaults(ThreadConfig{Model: "x", ContextWindow: 1000, AutoCompactTokenLimit: -1})
	require.Equal(t, int64(-1), c.AutoCompactTokenLimit, "negative turns auto compaction off")
}
