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

// The stream functions write the message text to text (nil: nowhere) as
// it streams in, for the live view of a running call (see [ModelProgress]),
// and call touch (nil: nothing) on every event, for the idle timeout. An
// error after the first event is a [brokenStream].

func streamResponses(ctx context.Context, c openai.Client, req harness.Request) (harness.Answer, error) {
	return streamResponsesTo(ctx, c, req, nil, nil)
}

func streamResponsesTo(ctx context.Context, c openai.Client, req harness.Request, text io.Writer, touch func()) (harness.Answer, error) {
	stream := c.Responses.NewStreaming(ctx, harness.RenderResponses(req))
	defer stream.Close()
	// The answer is gathered from the events themselves: servers differ in
	// whether response.completed repeats the output items.
	var acc harness.ResponsesStream
	events := 0
	for stream.Next() {
		events++
		if touch != nil {
			touch()
		}
		ev := stream.Current()
		if ev.Type == "response.output_text.delta" && text != nil {
			_, _ = io.WriteString(text, ev.Delta)
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
	return streamChatTo(ctx, c, req, nil, nil)
}

func streamChatTo(ctx context.Context, c openai.Client, req harness.Request, text io.Writer, touch func()) (harness.Answer, error) {
	stream := c.Chat.Completions.NewStreaming(ctx, harness.RenderChat(req))
	defer stream.Close()
	acc := openai.ChatCompletionAccumulator{}
	finished := false
	var reasoning strings.Builder
	events := 0
	for stream.Next() {
		events++
		if touch != nil {
			touch()
		}
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			if ch.FinishReason != "" {
				finished = true
			}
			if text != nil && ch.Delta.Content != "" {
				_, _ = io.WriteString(text, ch.Delta.Content)
			}
			// Thinking models behind chat APIs (Kimi, DeepSeek, Qwen)
			// stream their reasoning as reasoning_content.
			if f, ok := ch.Delta.JSON.ExtraFields["reasoning_content"]; ok && f.Raw() != "" {
				var piece string
				if json.Unmarshal([]byte(f.Raw()), &piece) == nil {
					reasoning.WriteString(piece)
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

func streamMessages(ctx context.Context, c anthropic.Client, req harness.Request, text io.Writer, touch func()) (harness.Answer, error) {
	stream := c.Messages.NewStreaming(ctx, harness.RenderMessages(req))
	defer stream.Close()
	var msg anthropic.Message
	stopped := false
	events := 0
	for stream.Next() {
		events++
		if touch != nil {
			touch()
		}
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return harness.Answer{}, fmt.Errorf("reading the stream: %w", err)
		}
		if ev.Type == "message_stop" {
			stopped = true
		}
		if text != nil && ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
			_, _ = io.WriteString(text, ev.Delta.Text)
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
