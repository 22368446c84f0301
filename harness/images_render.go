package harness

import (
	"encoding/base64"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// Pictures on each wire: Responses input_image parts (a user's framed as
// Codex frames them, a tool's in the function call's output), Chat
// image_url parts of a user message, Messages image blocks.

func responsesImageParts(imgs []Image, framed bool) []map[string]any {
	var parts []map[string]any
	for i, im := range imgs {
		img := map[string]any{"type": "input_image", "image_url": im.Source(), "detail": "high"}
		if !framed {
			parts = append(parts, img)
			continue
		}
		parts = append(parts, map[string]any{"type": "input_text", "text": imageOpen(i+1, im)}, img,
			map[string]any{"type": "input_text", "text": imageClose})
	}
	return parts
}

// responsesUserWithImages is a user message whose pictures come before
// its text.
func responsesUserWithImages(e Entry) responses.ResponseInputItemUnionParam {
	parts := responsesImageParts(e.Images, true)
	if e.Text != "" {
		parts = append(parts, map[string]any{"type": "input_text", "text": e.Text})
	}
	return param.Override[responses.ResponseInputItemUnionParam](map[string]any{
		"type": "message", "role": "user", "content": parts,
	})
}

// responsesOutputWithImages is a function call's output that shows
// pictures (view_image).
func responsesOutputWithImages(callID, text string, imgs []Image) responses.ResponseInputItemUnionParam {
	var parts []map[string]any
	if text != "" {
		parts = append(parts, map[string]any{"type": "input_text", "text": text})
	}
	parts = append(parts, responsesImageParts(imgs, false)...)
	return param.Override[responses.ResponseInputItemUnionParam](map[string]any{
		"type": "function_call_output", "call_id": callID, "output": parts,
	})
}

// chatUserWithImages is a user message of text and image_url parts.
func chatUserWithImages(text string, imgs []Image) openai.ChatCompletionMessageParamUnion {
	var parts []openai.ChatCompletionContentPartUnionParam
	for _, im := range imgs {
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: im.Source()}))
	}
	if text != "" {
		parts = append(parts, openai.TextContentPart(text))
	}
	return openai.UserMessage(parts)
}

// messagesImageBlock is an image block: the bytes inline, or the URL.
func messagesImageBlock(im Image) anthropic.ContentBlockParamUnion {
	if len(im.Data) > 0 {
		return anthropic.NewImageBlockBase64(im.MIME, base64.StdEncoding.EncodeToString(im.Data))
	}
	return anthropic.NewImageBlock(anthropic.URLImageSourceParam{URL: im.URL})
}

// messagesToolResultWithImages is a tool result that carries pictures.
func messagesToolResultWithImages(callID, text string, imgs []Image, isError bool) anthropic.ContentBlockParamUnion {
	b := anthropic.NewToolResultBlock(callID, text, isError)
	for _, im := range imgs {
		if len(im.Data) > 0 {
			b.OfToolResult.Content = append(b.OfToolResult.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
				Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
					Data: base64.StdEncoding.EncodeToString(im.Data), MediaType: anthropic.Base64ImageSourceMediaType(im.MIME)}}}})
			continue
		}
		b.OfToolResult.Content = append(b.OfToolResult.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
			Source: anthropic.ImageBlockParamSourceUnion{OfURL: &anthropic.URLImageSourceParam{URL: im.URL}}}})
	}
	return b
}
