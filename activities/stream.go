package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/interpreter-dev/interpreter/harness"
)

var errIncompleteStream = harness.ErrIncompleteStream

// The stream functions write the message text and the reasoning summary
// to their sinks (nil: nowhere) as they stream in, for the live view of a
// running call (see [ModelProgress]).

// sinks are where a stream writes what it shows while it runs; touch
// (nil: nothing) is called on every event, for the idle timeout. An error
// after the first event is a [brokenStream].
type sinks struct {
	text, reasoning io.Writer
	touch           func()
}

func (s sinks) event() {
	if s.touch != nil {
		s.touch()
	}
}

func (s sinks) write(w io.Writer, piece string) {
	if w != nil && piece != "" {
		_, _ = io.WriteString(w, piece)
	}
}

func streamResponses(ctx context.Context, c openai.Client, req harness.Request) (harness.Answer, error) {
	return streamResponsesTo(ctx, c, req, sinks{})
}

func streamResponsesTo(ctx context.Context, c openai.Client, req harness.Request, out sinks) (harness.Answer, error) {
	stream := c.Responses.NewStreaming(ctx, harness.RenderResponses(req))
	defer stream.Close()
	// The answer is gathered from the events themselves: servers differ in
	// whether response.completed repeats the output items.
	var acc harness.ResponsesStream
	events := 0
	for stream.Next() {
		events++
		out.event()
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			out.write(out.text, ev.Delta)
		case "response.reasoning_summary_text.delta":
			out.write(out.reasoning, ev.Delta)
		case "response.reasoning_summary_part.added":
			if ev.SummaryIndex > 0 {
				out.write(out.reasoning, "\n") // parts join as the answer joins them
			}
		}
		over, err := acc.Add([]byte(ev.RawJSON()))
		if err != nil {
			return harness.Answer{}, err
		}
		if over {
			break
		}
	}
	if err := stream.Err(); err != nil {
		return harness.Answer{}, broken(err, events)
	}
	return acc.Answer()
}

func streamChat(ctx context.Context, c openai.Client, req harness.Request) (harness.Answer, error) {
	return streamChatTo(ctx, c, req, sinks{})
}

func streamChatTo(ctx context.Context, c openai.Client, req harness.Request, out sinks) (harness.Answer, error) {
	stream := c.Chat.Completions.NewStreaming(ctx, harness.RenderChat(req))
	defer stream.Close()
	acc := openai.ChatCompletionAccumulator{}
	finished := false
	var reasoning strings.Builder
	events := 0
	for stream.Next() {
		events++
		out.event()
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			if ch.FinishReason != "" {
				finished = true
			}
			out.write(out.text, ch.Delta.Content)
			// Thinking models behind chat APIs (Kimi, DeepSeek, Qwen)
			// stream their reasoning as reasoning_content.
			if f, ok := ch.Delta.JSON.ExtraFields["reasoning_content"]; ok && f.Raw() != "" {
				var piece string
				if json.Unmarshal([]byte(f.Raw()), &piece) == nil {
					reasoning.WriteString(piece)
					out.write(out.reasoning, piece)
				}
			}
		}
	}
	if err := stream.Err(); err != nil {
		return harness.Answer{}, broken(err, events)
	}
	if !finished {
		return harness.Answer{}, errIncompleteStream
	}
	return harness.ParseChat(acc.ChatCompletion, reasoning.String()), nil
}

func streamMessages(ctx context.Context, c anthropic.Client, req harness.Request, out sinks) (harness.Answer, error) {
	stream := c.Messages.NewStreaming(ctx, harness.RenderMessages(req))
	defer stream.Close()
	var msg anthropic.Message
	stopped := false
	events := 0
	for stream.Next() {
		events++
		out.event()
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return harness.Answer{}, fmt.Errorf("reading the stream: %w", err)
		}
		if ev.Type == "message_stop" {
			stopped = true
		}
		if ev.Type == "content_block_delta" {
			switch ev.Delta.Type {
			case "text_delta":
				out.write(out.text, ev.Delta.Text)
			case "thinking_delta":
				out.write(out.reasoning, ev.Delta.Thinking)
			}
		}
	}
	if err := stream.Err(); err != nil {
		return harness.Answer{}, broken(err, events)
	}
	if !stopped {
		return harness.Answer{}, errIncompleteStream
	}
	return harness.ParseMessage(msg), nil
}
