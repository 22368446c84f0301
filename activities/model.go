package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/harness"
	_ "github.com/interpreter-dev/interpreter/harness/all" // registers every harness
)

// Wire APIs a provider can speak.
const (
	WireResponses = harness.WireResponses
	WireChat      = harness.WireChat
	WireMessages  = harness.WireMessages
)

// ProviderSpec says how to reach a model provider. It carries the name of the
// environment variable holding the key, never the key itself, so it can sit
// in workflow history.
type ProviderSpec struct {
	ID      string            `json:"id"`
	Name    string            `json:"name,omitempty"`
	BaseURL string            `json:"base_url,omitempty"`
	WireAPI string            `json:"wire_api"`
	EnvKey  string            `json:"env_key,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Retries, by Codex's keys (nil or 0: the defaults, see
	// [ProviderSpec.RequestRetries]), which the turn follows.
	RequestMaxRetries   *int  `json:"request_max_retries,omitempty"`
	StreamMaxRetries    *int  `json:"stream_max_retries,omitempty"`
	StreamIdleTimeoutMs int64 `json:"stream_idle_timeout_ms,omitempty"`
}

// ModelInput is one model call: the transcript so far (by reference), the
// entries to append before calling, and how to render it.
type ModelInput struct {
	ThreadID   string          `json:"thread_id"`
	TurnID     string          `json:"turn_id"`
	Step       int             `json:"step"`
	Model      string          `json:"model"`
	Provider   ProviderSpec    `json:"provider"`
	Harness    string          `json:"harness"`
	Env        harness.Env     `json:"env"`
	Transcript string          `json:"transcript,omitempty"`
	Append     []harness.Entry `json:"append,omitempty"`
	// External tools (MCP, dynamic) offered besides the harness's own.
	External []harness.ExternalTool `json:"external,omitempty"`
	// Budget, for a call made as a local activity, bounds how long it
	// waits for the answer: a call still streaming then goes on in the
	// background, and the output names it in Handoff.
	Budget time.Duration `json:"budget,omitempty"`
	// Resume is a Handoff to take over: the call goes on streaming here,
	// with heartbeats, when this worker holds it, and is made afresh
	// otherwise.
	Resume string `json:"resume,omitempty"`
	// FailoverQueue, with Resume, is where the server sends a further
	// attempt of the call when the worker holding it is lost (see
	// [Failover]); empty: the call's own queue, and no further attempt.
	FailoverQueue string `json:"failover_queue,omitempty"`
	// Reasoning settings asked of the model.
	Reasoning harness.Reasoning `json:"reasoning,omitzero"`
}

// DecodedCall is a tool call with its mapping onto a core tool.
type DecodedCall struct {
	Call harness.ToolCall   `json:"call"`
	Inv  harness.Invocation `json:"invocation"`
}

// ModelOutput is what the workflow needs of an answer. The full answer is
// in the store, reachable from Transcript.
type ModelOutput struct {
	Transcript string        `json:"transcript"`
	Message    string        `json:"message,omitempty"`
	Reasoning  string        `json:"reasoning,omitempty"`
	Calls      []DecodedCall `json:"calls,omitempty"`
	Usage      harness.Usage `json:"usage"`
	// Handoff, set instead of everything else, names a call that outran
	// its budget and goes on streaming on this worker (see
	// [ModelInput.Resume]).
	Handoff string `json:"handoff,omitempty"`
	// HandoffQueue is where the handed-off call is (empty: anywhere).
	HandoffQueue string `json:"handoff_queue,omitempty"`
	// ElapsedMs is how long a call with a budget (a local activity) took:
	// what the workflow task spent on it.
	ElapsedMs int64 `json:"elapsed_ms,omitempty"`
}

// Error types the workflow tells apart.
const (
	ErrTypeProvider = "ProviderError"
	ErrTypeConfig   = "ConfigError"
)

// CallModel renders the conversation, streams the provider's answer while
// heartbeating, and stores the extended transcript. It is safe to retry: the
// store is content-addressed and nothing else changes.
//
// With in.Budget set (a local activity, see [ModelInput.Budget]) it waits
// that long for the answer and otherwise hands the call off; with
// in.Resume set it takes over a handed-off call, or calls afresh when the
// call is not on this worker.
func (a *Activities) CallModel(ctx context.Context, in ModelInput) (*ModelOutput, error) {
	// A retry after the store failed: write the answer the model gave
	// then, without asking it again.
	if c := a.keptCall(in); c != nil {
		return a.output(c)
	}
	if in.Resume != "" {
		if c := a.handoffs().take(in.Resume); c != nil {
			// Beside the call, not before it: the heartbeats must not wait
			// for a server round trip.
			go a.armFailover(ctx, in)
			out, err := a.awaitCall(ctx, c)
			return out, attemptError(err)
		}
		a.tookOverLost(ctx, in)
	}
	begin := time.Now()
	c, err := a.startCall(ctx, in)
	if err != nil {
		return nil, err
	}
	if in.Budget > 0 {
		out, err := a.callWithin(ctx, c, in.Budget)
		if out != nil {
			out.ElapsedMs = time.Since(begin).Milliseconds()
		}
		return out, err
	}
	return a.awaitCall(ctx, c)
}

// modelCall is a model call whose answer streams in on its own goroutine.
type modelCall struct {
	in   ModelInput
	h    harness.Harness
	conv []harness.Entry
	refs []string
	live *liveTail // nil for harnesses that find commands in the text
	// thought is the reasoning summary streamed so far.
	thought *liveTail
	cancel  context.CancelFunc
	done    chan struct{}
	ans     harness.Answer
	err     error
}

// startCall prepares the request and starts streaming the answer. A call
// that may be handed off streams under a context of its own, so that it
// outlives the local activity that started it.
func (a *Activities) startCall(ctx context.Context, in ModelInput) (*modelCall, error) {
	route, err := harness.Resolve(in.Provider.WireAPI, in.Harness)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeConfig, nil)
	}
	h := route.Harness
	key, base, err := a.credentials(in.Provider)
	if err != nil {
		return nil, err
	}
	prior, refs, err := a.Store.Transcript(in.Transcript)
	if err != nil {
		return nil, a.Store.storeFailure(err)
	}
	conv := append(prior, in.Append...)
	shown, err := a.withImageData(conv)
	if err != nil {
		return nil, err
	}
	req := harness.Request{Model: in.Model, Harness: h, Env: in.Env, Conversation: shown, CacheKey: in.ThreadID, External: in.External, Reasoning: in.Reasoning}
	c := &modelCall{in: in, h: h, conv: conv, refs: refs, done: make(chan struct{})}
	// The message text streams into live, which heartbeats show (see
	// [ModelProgress]). Not for harnesses that find commands in the text:
	// their message is not the raw text.
	c.thought = &liveTail{}
	out := sinks{reasoning: c.thought}
	if _, ok := h.(harness.Finisher); !ok {
		c.live = &liveTail{}
		out.text = c.live
	}
	var sctx context.Context
	if in.Budget > 0 {
		sctx, c.cancel = context.WithTimeout(context.WithoutCancel(ctx), handoffLifetime)
	} else {
		sctx, c.cancel = context.WithCancel(ctx)
	}
	idle := in.Provider.StreamIdleTimeout()
	sctx, touch, stopIdle := watchIdle(sctx, idle)
	out.touch = touch
	go func() {
		defer close(c.done)
		defer stopIdle()
		// Off the activity's goroutine, a panic in a harness's rendering
		// or parsing would take the whole worker down; it fails the call.
		defer func() {
			if r := recover(); r != nil {
				c.err = fmt.Errorf("model call: panic: %v", r)
			}
		}()
		switch route.Wire {
		case WireResponses:
			c.ans, c.err = streamResponsesTo(sctx, a.openaiClient(in.Provider, base, key), req, out)
		case WireChat:
			c.ans, c.err = streamChatTo(sctx, a.openaiClient(in.Provider, base, key), req, out)
		case WireMessages:
			c.ans, c.err = streamMessages(sctx, a.anthropicClient(in.Provider, base, key), req, out)
		}
		if c.err != nil && errors.Is(context.Cause(sctx), errStreamIdle) {
			c.err = errStreamIdle
		}
	}()
	return c, nil
}

// awaitCall heartbeats the streamed text until the answer is in, and
// returns it.
func (a *Activities) awaitCall(ctx context.Context, c *modelCall) (*ModelOutput, error) {
	defer c.cancel()
	stop := a.keepHeartbeatingLive(ctx, c.live, c.thought, c.in.Step)
	defer stop()
	select {
	case <-c.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return a.output(c)
}

// callWithin waits up to budget for the answer; a call still streaming
// then is kept for the activity that takes it over.
func (a *Activities) callWithin(ctx context.Context, c *modelCall, budget time.Duration) (*ModelOutput, error) {
	t := time.NewTimer(budget)
	defer t.Stop()
	select {
	case <-c.done:
		c.cancel()
		return a.output(c)
	case <-t.C:
		return &ModelOutput{Handoff: a.handoffs().put(c), HandoffQueue: a.HandoffQueue}, nil
	case <-ctx.Done():
		c.cancel()
		return nil, ctx.Err()
	}
}

// output stores the answer and says what the workflow needs of it.
func (a *Activities) output(c *modelCall) (*ModelOutput, error) {
	if c.err != nil {
		return nil, classify(c.in.Provider, c.err)
	}
	ans := c.ans
	if f, ok := c.h.(harness.Finisher); ok {
		ans = finish(f, c.conv, ans, fmt.Sprintf("text-%s-%d", c.in.TurnID, c.in.Step))
	}
	all := append(append([]harness.Entry{}, c.in.Append...), ans.Entries...)
	ref, err := a.Store.Append(c.refs, all)
	if err != nil {
		a.keep(c)
		return nil, a.Store.storeFailure(err)
	}
	out := &ModelOutput{Transcript: ref, Message: ans.Message(), Usage: ans.Usage}
	for _, e := range ans.Entries {
		if e.Kind == harness.KindReasoning {
			out.Reasoning += e.Text
		}
	}
	for _, call := range ans.ToolCalls() {
		out.Calls = append(out.Calls, DecodedCall{Call: call, Inv: decode(c.h, c.in.External, call)})
	}
	if err := checkPayload(out); err != nil {
		return nil, err
	}
	return out, nil
}

// MaxPayload keeps activity results well under Temporal's 2 MB payload
// limit, leaving room for the rest of the event.
const MaxPayload = 1536 << 10

// checkPayload turns a result too large for workflow history into a
// permanent failure: retrying it would fail the same way, forever.
func checkPayload(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding result: %w", err)
	}
	if len(b) > MaxPayload {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("the model's answer is %d bytes, over the %d-byte limit of a workflow payload", len(b), MaxPayload),
			ErrTypeProvider, nil)
	}
	return nil
}

// finish lets a text-loop harness find the commands in an answer; a
// harness that panics leaves the answer as it was (the turn ends on it).
func finish(f harness.Finisher, conv []harness.Entry, ans harness.Answer, callID string) (out harness.Answer) {
	defer func() {
		if r := recover(); r != nil {
			out = ans
		}
	}()
	return f.Finish(conv, ans, callID)
}

// decode maps a call onto a core tool; a harness that panics on strange
// input costs the model one tool error, not the turn.
func decode(h harness.Harness, external []harness.ExternalTool, c harness.ToolCall) (inv harness.Invocation) {
	defer func() {
		if r := recover(); r != nil {
			inv = harness.Invocation{Tool: c.Name, Error: fmt.Sprintf("could not decode the call: %v", r)}
		}
	}()
	return harness.DecodeCall(h, external, c)
}

// keepHeartbeating heartbeats on a ticker until stop is called, so a model
// that is slow to send its first byte is not mistaken for a dead worker.
// Streamed events do not heartbeat: the first heartbeat is a server round
// trip, which would be most of the cost of a fast call.
func (a *Activities) keepHeartbeating(ctx context.Context) (stop func()) {
	return a.keepHeartbeatingLive(ctx, nil, nil, 0)
}

// keepHeartbeatingLive is keepHeartbeating whose heartbeats also carry the
// message text streamed into live so far ([ModelProgress]): soon after it
// grows, once the call has run for liveAfter, so that fast calls send no
// heartbeat at all. Heartbeats are sent from this goroutine, never from
// the stream's.
func (a *Activities) keepHeartbeatingLive(ctx context.Context, live, thought *liveTail, step int) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	every := a.keepAliveEvery(ctx)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		lt := time.NewTicker(liveEvery)
		defer lt.Stop()
		start := time.Now()
		var sent, thoughtSent int64
		beat := func() {
			if live == nil && thought == nil {
				activity.RecordHeartbeat(ctx)
				return
			}
			var m ModelProgress
			m.Step = step
			if live != nil {
				p := live.progress("")
				sent = p.Total
				m.Total, m.Offset, m.Tail = p.Total, p.Offset, p.Tail
			}
			if thought != nil && thought.written() > 0 {
				p := thought.progress("")
				thoughtSent = p.Total
				m.Reasoning = &p
			}
			activity.RecordHeartbeat(ctx, m)
		}
		grew := func() bool {
			return live != nil && live.written() != sent || thought != nil && thought.written() != thoughtSent
		}
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				beat()
			case <-lt.C:
				if time.Since(start) >= liveAfter && grew() {
					beat()
				}
			}
		}
	}()
	return func() { close(done) }
}
