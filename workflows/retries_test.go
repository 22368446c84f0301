package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
)

func intp(n int) *int { return &n }

func refused() error {
	return temporal.NewApplicationError("cannot reach provider p: connection refused", activities.ErrTypeConnection)
}

// retryEvents returns the model.retry events of a turn's log.
func retryEvents(events []Event) []Event {
	var out []Event
	for _, e := range events {
		if e.Type == EventModelRetry {
			out = append(out, e)
		}
	}
	return out
}

// A provider that refuses every connection: the turn makes
// 1 + request_max_retries attempts, logs a model.retry event before each
// new one, and its workflow fails with the turn's result in the error.
func TestModelRetriesFollowRequestMaxRetries(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(int, activities.ModelInput) (*activities.ModelOutput, error) { return nil, refused() }}
	mockModel(env, model)
	cfg := testConfig()
	cfg.Provider.RequestMaxRetries = intp(2)
	in := turnInput(cfg)
	start := env.Now()
	env.ExecuteWorkflow(TurnWorkflow, in)

	require.True(t, env.IsWorkflowCompleted())
	var app *temporal.ApplicationError
	require.True(t, errors.As(env.GetWorkflowError(), &app), "the turn's workflow fails: %v", env.GetWorkflowError())
	require.Equal(t, ErrTypeTurnFailed, app.Type())
	require.True(t, app.NonRetryable())
	require.Equal(t, "cannot reach provider p: connection refused (gave up after 3 attempts)", app.Message())

	res := turnResult(t, env)
	require.Equal(t, StatusFailed, res.Status)
	require.Equal(t, app.Message(), res.Error)
	require.Equal(t, testTurnID, res.TurnID)
	require.Len(t, model.calls(), 3)
	require.Equal(t, 3*time.Second, env.Now().Sub(start), "pauses of 1 s and 2 s")

	page := queryEvents(t, env)
	retries := retryEvents(page.Events)
	require.Len(t, retries, 2)
	require.Equal(t, ModelRetry{Attempt: 2, MaxAttempts: 3, DelayMs: 1000, Kind: RetryRequest}, *retries[0].Retry)
	require.Equal(t, ModelRetry{Attempt: 3, MaxAttempts: 3, DelayMs: 2000, Kind: RetryRequest}, *retries[1].Retry)
	require.Equal(t, "retrying model call (attempt 2/3 in 1s): cannot reach provider p: connection refused", RetryText(retries[0]))
	require.Equal(t, EventTurnFailed, page.Events[len(page.Events)-1].Type)
}

// Broken answers count against stream_max_retries, with the provider's
// status when it gave one; an answer after them completes the turn.
func TestModelRetriesRecoverAndCountStreams(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, _ activities.ModelInput) (*activities.ModelOutput, error) {
		switch n {
		case 1:
			return nil, temporal.NewApplicationError("provider p broke off its answer: overloaded", activities.ErrTypeStream)
		case 2:
			return nil, temporal.NewApplicationErrorWithOptions("provider p answered 503: busy", activities.ErrTypeProvider,
				temporal.ApplicationErrorOptions{Details: []any{503}})
		}
		return answer(n, "hi"), nil
	}}
	mockModel(env, model)
	cfg := testConfig()
	cfg.Provider.RequestMaxRetries, cfg.Provider.StreamMaxRetries = intp(1), intp(1)
	in := turnInput(cfg)
	env.ExecuteWorkflow(TurnWorkflow, in)

	require.NoError(t, env.GetWorkflowError())
	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Equal(t, "hi", res.FinalMessage)
	retries := retryEvents(queryEvents(t, env).Events)
	require.Len(t, retries, 2)
	require.Equal(t, ModelRetry{Attempt: 2, MaxAttempts: 2, DelayMs: 1000, Kind: RetryStream}, *retries[0].Retry)
	require.Equal(t, ModelRetry{Attempt: 3, MaxAttempts: 3, DelayMs: 1000, Kind: RetryRequest, HTTPStatus: 503}, *retries[1].Retry)
}

// A permanent refusal fails the turn at once, with the provider's words
// and no retry; the turn's workflow fails.
func TestPermanentModelErrorFailsAtOnce(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(int, activities.ModelInput) (*activities.ModelOutput, error) {
		return nil, temporal.NewNonRetryableApplicationError("provider p answered 401: bad key", activities.ErrTypeProvider, nil)
	}}
	mockModel(env, model)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusFailed, res.Status)
	require.Equal(t, "provider p answered 401: bad key", res.Error)
	require.Len(t, model.calls(), 1)
	require.Empty(t, retryEvents(queryEvents(t, env).Events))
	require.Error(t, env.GetWorkflowError())
}

// An interrupt during the pause before a retry ends the turn as
// interrupted; its workflow is canceled with the result in the details.
func TestInterruptDuringRetryPause(t *testing.T) {
	env := newEnv(t)
	mockModel(env, &fakeModel{answer: func(int, activities.ModelInput) (*activities.ModelOutput, error) { return nil, refused() }})
	in := turnInput(testConfig())
	env.RegisterDelayedCallback(env.CancelWorkflow, 1500*time.Millisecond)
	env.ExecuteWorkflow(TurnWorkflow, in)

	var canceled *temporal.CanceledError
	require.True(t, errors.As(env.GetWorkflowError(), &canceled), "canceled: %v", env.GetWorkflowError())
	res := turnResult(t, env)
	require.Equal(t, StatusInterrupted, res.Status)
	require.Len(t, retryEvents(queryEvents(t, env).Events), 2, "the second pause was interrupted")
}

// The thread takes a failed turn's result from its child's failure: the
// thread stays healthy, shows the turn failed and runs the next one.
func TestThreadTakesInFailedTurn(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, _ activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return nil, temporal.NewNonRetryableApplicationError("provider p answered 400: bad model", activities.ErrTypeProvider, nil)
		}
		return answer(n, "fine"), nil
	}}
	mockModel(env, model)
	var first, second *turnStart
	var view ThreadView
	env.RegisterDelayedCallback(func() { first = startTurn(env, StartTurnRequest{Prompt: "one"}) }, 0)
	env.RegisterDelayedCallback(func() { second = startTurn(env, StartTurnRequest{Prompt: "two"}) }, time.Minute)
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); env.CancelWorkflow() }, 2*time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)

	requireAccepted(t, first, 1)
	requireAccepted(t, second, 2)
	require.Len(t, view.Turns, 2)
	require.Equal(t, StatusFailed, view.Turns[0].Status)
	require.Equal(t, "provider p answered 400: bad model", view.Turns[0].Error)
	require.Equal(t, 1, view.Turns[0].Steps, "the result is the turn's own, not a stand-in")
	require.Equal(t, StatusCompleted, view.Turns[1].Status)
	require.Equal(t, "fine", view.Turns[1].FinalMessage)
}
