package activities

import (
	"context"
	"errors"

	"github.com/openai/openai-go/v3"

	"github.com/interpreter-dev/interpreter/harness"
)

var errIncompleteStream = errors.New("stream ended before the response completed")


func streamResponses(ctx context.Context, c openai.Client, req harness.Request) (harness.Answer, error) {
	stream := c.Responses.NewStreaming(ctx, harness.RenderResponses(req))
	defer stream.Close()
	var raw string
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.completed", "response.incomplete":
			raw = ev.Response.RawJSON()
		case "response.failed":
			msg := ev.Response.Error.Message
			if msg == "" {
				msg = "response failed"
			}
			return harness.Answer{}, errors.New(msg)
		case "error":
			return harness.Answer{}, errors.New(ev.Message)
		}
	}
	if err := stream.Err(); err != nil {
		return harness.Answer{}, err
	}
	if raw == "" {
		return harness.Answer{}, errIncompleteStream
	}
	return harness.ParseResponses([]byte(raw))
}

func streamChat(ctx context.Context, c openai.Client, req harness.Request) (harness.Answer, error) {
	stream := c.Chat.Completions.NewStreaming(ctx, harness.RenderChat(req))
	defer stream.Close()
	acc := openai.ChatCompletionAccumulator{}
	finished := false
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			if ch.FinishReason != "" {
				finished = true
			}
		}
	}
	if err := stream.Err(); err != nil {
		return harness.Answer{}, err
	}
	if !finished {
		return harness.Answer{}, errIncompleteStream
	}
	return harness.ParseChat(acc.ChatCompletion), nil
}
