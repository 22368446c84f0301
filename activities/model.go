package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/harness"
	_ "github.com/interpreter-dev/interpreter/harness/codex" // registers the native harness
)

// Wire APIs a provider can speak.
const (
	WireResponses = "responses"
	WireChat      = "chat"
	WireMessages  = "messages"
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
}

// Error types the workflow tells apart.
const (
	ErrTypeProvider = "ProviderError"
	ErrTypeConfig   = "ConfigError"
)

// CallModel renders the conversation, streams the provider's answer while
// heartbeating, and stores the extended transcript. It is safe to retry: the
// store is content-addressed and nothing else changes.
func (a *Activities) CallModel(ctx context.Context, in ModelInput) (*ModelOutput, error) {
	h, err := harness.Lookup(in.Harness)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeConfig, nil)
	}
	client, err := a.openaiClient(in.Provider)
	if err != nil {
		return nil, err
	}
	prior, refs, err := a.Store.Transcript(in.Transcript)
	if err != nil {
		return nil, err
	}
	conv := append(prior, in.Append...)
	req := harness.Request{Model: in.Model, Harness: h, Env: in.Env, Conversation: conv, CacheKey: in.ThreadID}

	stop := a.keepHeartbeating(ctx)
	defer stop()
	var ans harness.Answer
	switch in.Provider.WireAPI {
	case WireResponses, "":
		ans, err = streamResponses(ctx, client, req)
	case WireChat:
		ans, err = streamChat(ctx, client, req)
	default:
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("wire_api %q of provider %q is not supported here (use responses or chat)", in.Provider.WireAPI, in.Provider.ID), ErrTypeConfig, nil)
	}
	if err != nil {
		return nil, classify(in.Provider, err)
	}
	all := append(append([]harness.Entry{}, in.Append...), ans.Entries...)
	ref, err := a.Store.Append(refs, all)
	if err != nil {
		return nil, err
	}
	out := &ModelOutput{Transcript: ref, Message: ans.Message(), Usage: ans.Usage}
	for _, e := range ans.Entries {
		if e.Kind == harness.KindReasoning {
			out.Reasoning += e.Text
		}
	}
	for _, c := range ans.ToolCalls() {
		out.Calls = append(out.Calls, DecodedCall{Call: c, Inv: h.Decode(c)})
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

func (a *Activities) getenv(k string) string {
	if a.Getenv != nil {
		return a.Getenv(k)
	}
	return os.Getenv(k)
}

func (a *Activities) openaiClient(p ProviderSpec) (openai.Client, error) {
	base := p.BaseURL
	if p.ID == "demo" && base == "" {
		base = a.DemoBaseURL
	}
	if base == "" {
		return openai.Client{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("provider %q has no base_url", p.ID), ErrTypeConfig, nil)
	}
	key := "unused"
	if p.EnvKey != "" {
		key = a.getenv(p.EnvKey)
		if key == "" {
			return openai.Client{}, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("%s is not set: provider %q needs an API key in the worker's environment", p.EnvKey, p.ID), ErrTypeConfig, nil)
		}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithAPIKey(key),
		// Temporal's retry policy decides; the SDK must not retry on its own.
		option.WithMaxRetries(0),
	}
	if a.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(a.HTTPClient))
	}
	for k, v := range p.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return openai.NewClient(opts...), nil
}

// keepHeartbeating heartbeats on a ticker until stop is called, so a model
// that is slow to send its first byte is not mistaken for a dead worker.
// Streamed events do not heartbeat: the first heartbeat is a server round
// trip, which would be most of the cost of a fast call.
func (a *Activities) keepHeartbeating(ctx context.Context) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	every := a.HeartbeatEvery
	if every <= 0 {
		every = time.Second
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}

// classify turns a provider error into a retryable Go error or a
// non-retryable application error that fails the turn with the provider's
// message.
func classify(p ProviderSpec, err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		text := fmt.Sprintf("provider %s answered %d: %s", p.ID, apiErr.StatusCode, msg)
		switch {
		case apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode >= 500 || apiErr.StatusCode == http.StatusRequestTimeout:
			return temporal.NewApplicationError(text, ErrTypeProvider)
		default:
			return temporal.NewNonRetryableApplicationError(text, ErrTypeProvider, nil)
		}
	}
	return fmt.Errorf("calling provider %s: %w", p.ID, err)
}
