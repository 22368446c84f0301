package activities

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/temporal"
)

// Retry settings of a provider, with Codex's defaults
// ([model_providers.<id>] request_max_retries, stream_max_retries,
// stream_idle_timeout_ms).
const (
	DefaultRequestMaxRetries = 4
	DefaultStreamMaxRetries  = 5
	DefaultStreamIdleTimeout = 300 * time.Second
	// maxRetries caps both counts, as Codex does.
	maxRetries = 100
)

// Error types of a model call that may be tried again. A request that
// failed before the answer began (no connection, 429, 5xx) counts against
// request_max_retries; an answer that broke off, or went quiet for the
// idle timeout, against stream_max_retries.
const (
	ErrTypeConnection = "ConnectionError"
	ErrTypeStream     = "StreamError"
)

// RequestRetries is how often a failed request is tried again.
func (p ProviderSpec) RequestRetries() int {
	return retries(p.RequestMaxRetries, DefaultRequestMaxRetries)
}

// StreamRetries is how often a broken answer is asked for again.
func (p ProviderSpec) StreamRetries() int {
	return retries(p.StreamMaxRetries, DefaultStreamMaxRetries)
}

// StreamIdleTimeout is how long an answer may go without an event.
func (p ProviderSpec) StreamIdleTimeout() time.Duration {
	if p.StreamIdleTimeoutMs > 0 {
		return time.Duration(p.StreamIdleTimeoutMs) * time.Millisecond
	}
	return DefaultStreamIdleTimeout
}

func retries(set *int, def int) int {
	switch {
	case set == nil:
		return def
	case *set < 0:
		return 0
	case *set > maxRetries:
		return maxRetries
	}
	return *set
}

// errStreamIdle is the cause of a stream cut by the idle timeout.
var errStreamIdle = errors.New("the answer stalled")

// brokenStream is an error after the answer began.
type brokenStream struct{ err error }

func (b *brokenStream) Error() string { return b.err.Error() }
func (b *brokenStream) Unwrap() error { return b.err }

// broken marks err as a break in the answer when events had come.
func broken(err error, events int) error {
	if events == 0 {
		return err
	}
	return &brokenStream{err}
}

// watchIdle cancels the returned context, with cause errStreamIdle, once
// touch has not been called for d. stop ends the watch.
func watchIdle(ctx context.Context, d time.Duration) (wctx context.Context, touch func(), stop func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(min(d/4+time.Millisecond, time.Second))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-wctx.Done():
				return
			case now := <-t.C:
				if now.Sub(time.Unix(0, last.Load())) >= d {
					cancel(errStreamIdle)
					return
				}
			}
		}
	}()
	return wctx, func() { last.Store(time.Now().UnixNano()) }, func() { close(done); cancel(nil) }
}

// classifyTransport names a failure that is not an answer of the
// provider's: a connection that could not be made, an answer that broke
// off or stalled.
func classifyTransport(p ProviderSpec, err error, idle time.Duration) error {
	var b *brokenStream
	var op *net.OpError
	switch {
	case errors.Is(err, errStreamIdle):
		return temporal.NewApplicationError(fmt.Sprintf("provider %s sent nothing for %s (stream_idle_timeout_ms)", p.ID, idle), ErrTypeStream)
	case errors.Is(err, errIncompleteStream):
		return temporal.NewApplicationError(fmt.Sprintf("provider %s ended its answer early", p.ID), ErrTypeStream)
	case errors.As(err, &b):
		return temporal.NewApplicationError(fmt.Sprintf("provider %s broke off its answer: %s", p.ID, rootCause(b.err)), ErrTypeStream)
	case errors.As(err, &op):
		return temporal.NewApplicationError(fmt.Sprintf("cannot reach provider %s: %s", p.ID, rootCause(op)), ErrTypeConnection)
	}
	return fmt.Errorf("calling provider %s: %w", p.ID, err)
}

// rootCause is the innermost message of err ("connection refused").
func rootCause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}
