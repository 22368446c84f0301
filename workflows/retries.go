package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// A turn makes each attempt of a model call itself (every activity runs
// once) and counts the failures as Codex does: a
// request that failed before the answer began is tried again up to the
// provider's request_max_retries, an answer that broke off or stalled up
// to its stream_max_retries. Before each new attempt the turn logs a
// model.retry event, so front ends show it while it happens, and waits
// on a durable timer. Permanent failures (401, 400, an unknown model)
// end the call at once.

// Pauses between attempts: the first retry waits retryFirstDelay, each
// later one of the same kind twice as long as the one before, up to
// retryMaxDelay. A dead provider with the default four request retries
// fails after about 15 s.
const (
	retryFirstDelay = time.Second
	retryMaxDelay   = 30 * time.Second
)

// retryPolicy is the Temporal retry policy of a model call's activity.
func (t *turn) retryPolicy() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{MaximumAttempts: 1}
}

// callModelRetrying makes attempts of a call until one answers, one fails
// for good, the failures of one kind pass the provider's limit, or the
// turn is interrupted.
func (t *turn) callModelRetrying(ctx workflow.Context, in activities.ModelInput) (*activities.ModelOutput, error) {
	p := t.in.Config.Provider
	tried := map[string]int{} // retries made, by kind
	for attempt := 1; ; attempt++ {
		out, err := t.callModelOnce(ctx, in)
		if err == nil || ctx.Err() != nil || !worthRetry(err) {
			return out, err
		}
		kind, status := retryKind(err)
		limit := p.RequestRetries()
		switch kind {
		case RetryStream:
			limit = p.StreamRetries()
		case RetryStore:
			limit = t.storeRetries()
		}
		if tried[kind] >= limit {
			return nil, gaveUp(err, attempt)
		}
		delay := retryDelay(tried[kind])
		if isTimeout(err) {
			delay = 0 // the worker making the call is gone: at once
		}
		tried[kind]++
		// News a reader should have at once: no wait holds it back for
		// the first answer (see [WaitRequest.HoldMs]).
		t.log.heard = true
		t.log.add(Event{Type: EventModelRetry, Error: rootMessage(err), Retry: &ModelRetry{
			Attempt: attempt + 1, MaxAttempts: attempt + 1 + limit - tried[kind],
			DelayMs: delay.Milliseconds(), Kind: kind, HTTPStatus: status,
		}})
		if delay > 0 {
			timer := workflow.NewTimerWithOptions(ctx, delay, workflow.TimerOptions{
				Summary: fmt.Sprintf("retry model call · step %d · attempt %d", in.Step, attempt+1),
			})
			if err := timer.Get(ctx, nil); err != nil {
				return nil, err
			}
		}
	}
}

// worthRetry tells whether a failed attempt may be made again.
func worthRetry(err error) bool {
	var app *temporal.ApplicationError
	var canceled *temporal.CanceledError
	switch {
	case errors.As(err, &canceled):
		return false
	case errors.As(err, &app):
		return !app.NonRetryable()
	}
	return true
}

// retryKind tells which limit a failure counts against, and the
// provider's HTTP status when it answered.
func retryKind(err error) (kind string, status int) {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return RetryRequest, 0
	}
	if app.Type() == activities.ErrTypeProvider && app.HasDetails() {
		_ = app.Details(&status)
	}
	switch app.Type() {
	case activities.ErrTypeStream:
		return RetryStream, status
	case activities.ErrTypeStore:
		return RetryStore, 0
	}
	return RetryRequest, status
}

// DefaultStoreRetries is how often a step the store failed is tried
// again: with the pauses of retryDelay, about 2.5 minutes of an object
// store out of reach before the turn fails.
const DefaultStoreRetries = 9

func (t *turn) storeRetries() int {
	if n := t.in.Config.StoreRetries; n != nil && *n >= 0 {
		return *n
	}
	return DefaultStoreRetries
}

func retryDelay(n int) time.Duration {
	d := retryFirstDelay
	for i := 0; i < n && d < retryMaxDelay; i++ {
		d *= 2
	}
	return min(d, retryMaxDelay)
}

// gaveUp is the error that ends a call whose retries ran out.
func gaveUp(err error, attempts int) error {
	typ := ""
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		typ = app.Type()
	}
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("%s (gave up after %d attempts)", rootMessage(err), attempts), typ, err)
}

// RetryText is how front ends show a model.retry event:
// "retrying model call (attempt 3/5 in 4s): connection refused".
func RetryText(e Event) string {
	r := e.Retry
	if r == nil {
		return "retrying model call: " + e.Error
	}
	in := ""
	if r.DelayMs > 0 {
		in = " in " + (time.Duration(r.DelayMs) * time.Millisecond).String()
	}
	what := "model call"
	if r.Kind == RetryStore {
		// The model answered; what is tried again is keeping its answer.
		what = "the store write"
	}
	return fmt.Sprintf("retrying %s (attempt %d/%d%s): %s", what, r.Attempt, r.MaxAttempts, in, e.Error)
}
