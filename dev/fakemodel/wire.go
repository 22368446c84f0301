package fakemodel

import (
	"net/http"
)

// wireFormat is one provider's HTTP wire format.
type wireFormat interface {
	// parse extracts what selection and rendering need from a request body.
	parse(body []byte) (request, error)
	// events renders a streaming answer; the last event is the terminal one.
	events(req request, r reply) []sseEvent
	// message renders a non-streaming answer.
	message(req request, r reply) any
	// errorBody renders an error in the provider's shape.
	errorBody(status int, msg string) any
}

// request is the parsed part of a model request.
type request struct {
	model              string
	stream             bool
	includeUsage       bool // chat: stream_options.include_usage
	encryptedReasoning bool // responses: include reasoning.encrypted_content
	conv               conversation
}

func (q request) modelOr(def string) string {
	if q.model == "" {
		return def
	}
	return q.model
}

// sseEvent is one server-sent event; an empty name writes no event line.
type sseEvent struct {
	name string
	data string
}

func newEvent(name string, v any) sseEvent {
	return sseEvent{name: name, data: marshalNoEscape(v)}
}

// errorType names an error status the way both providers roughly do.
func errorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusMethodNotAllowed:
		return "invalid_request_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// openAIError is the OpenAI error body shape, shared by Responses and Chat.
func openAIError(status int, msg string) any {
	return map[string]any{"error": map[string]any{
		"message": msg, "type": errorType(status), "param": nil, "code": nil,
	}}
}
