package activities

// A provider's credentials, its SDK clients and the reading of its errors.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.temporal.io/sdk/temporal"
)

func (a *Activities) getenv(k string) string {
	if a.Getenv != nil {
		return a.Getenv(k)
	}
	return os.Getenv(k)
}

// credentials finds a provider's base URL and API key (from the worker's
// environment, by the variable's name).
func (a *Activities) credentials(p ProviderSpec) (key, base string, err error) {
	base = p.BaseURL
	if p.ID == "demo" && base == "" {
		base = a.DemoBaseURL
	}
	if base == "" {
		return "", "", temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("provider %q has no base_url", p.ID), ErrTypeConfig, nil)
	}
	key = "unused"
	if p.EnvKey != "" {
		key = a.getenv(p.EnvKey)
		if key == "" {
			return "", "", temporal.NewNonRetryableApplicationError(MissingKeyMessage(p), ErrTypeConfig, nil)
		}
	}
	return key, base, nil
}

func (a *Activities) openaiClient(p ProviderSpec, base, key string) openai.Client {
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
	return openai.NewClient(opts...)
}

func (a *Activities) anthropicClient(p ProviderSpec, base, key string) anthropic.Client {
	opts := []anthropicoption.RequestOption{
		anthropicoption.WithBaseURL(base),
		anthropicoption.WithAPIKey(key),
		// Temporal's retry policy decides; the SDK must not retry on its own.
		anthropicoption.WithMaxRetries(0),
	}
	if a.HTTPClient != nil {
		opts = append(opts, anthropicoption.WithHTTPClient(a.HTTPClient))
	}
	for k, v := range p.Headers {
		opts = append(opts, anthropicoption.WithHeader(k, v))
	}
	return anthropic.NewClient(opts...)
}

// classify turns a provider error into a retryable Go error or a
// non-retryable application error that fails the turn with the provider's
// message.
func classify(p ProviderSpec, err error) error {
	status, msg := 0, ""
	var apiErr *openai.Error
	var antErr *anthropic.Error
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.StatusCode, apiErr.Message
	case errors.As(err, &antErr):
		status, msg = antErr.StatusCode, anthropicMessage(antErr)
	default:
		return classifyTransport(p, err, p.StreamIdleTimeout())
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	text := fmt.Sprintf("provider %s answered %d: %s", p.ID, status, msg)
	switch {
	case status < 400:
		// An error event in the middle of a stream that began well
		// (overloaded, ...): the answer is cut off, so try again.
		return temporal.NewApplicationError(fmt.Sprintf("provider %s broke off its answer: %s", p.ID, msg), ErrTypeStream)
	case status == http.StatusTooManyRequests || status >= 500 || status == http.StatusRequestTimeout:
		return temporal.NewApplicationErrorWithOptions(text, ErrTypeProvider, temporal.ApplicationErrorOptions{Details: []any{status}})
	default:
		return temporal.NewApplicationErrorWithOptions(text, ErrTypeProvider, temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{status}})
	}
}

// anthropicMessage digs the message out of an Anthropic error body
// ({"type":"error","error":{"type":...,"message":...}}).
func anthropicMessage(e *anthropic.Error) string {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(e.RawJSON()), &body) == nil && body.Error.Message != "" {
		return body.Error.Message
	}
	return ""
}

// MissingKeyMessage says which variable a provider's key is read from, for
// a worker (or a front end hosting one) that lacks it.
func MissingKeyMessage(p ProviderSpec) string {
	return fmt.Sprintf("%s is not set: provider %q needs an API key in the worker's environment. Export %s where the worker runs, "+
		"or pick another provider (--provider oss for a local server, --provider demo for the built-in scripted demo)", p.EnvKey, p.ID, p.EnvKey)
}
