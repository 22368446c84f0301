// Package fakemodel is a scripted fake LLM server that speaks the real
// provider HTTP wire formats: the OpenAI Responses API, OpenAI Chat
// Completions and Anthropic Messages, each streaming (SSE) and non-streaming.
//
// The package owns three things:
//   - the script format ([Script], [Turn], [Step]) and its strict loader;
//   - stateless step selection: which scripted step answers a request is
//     derived from the conversation carried in the request body alone (user
//     messages pick the turn, tool results after the last user message pick
//     the step), so client retries and concurrent threads behave; a step
//     may quote those tool results ({{output.N}}, see refs.go), as a model
//     uses an id a tool returned;
//   - the HTTP server ([Server], [Start], [Serve]) with request recording and
//     the /_fake/requests and /_fake/reset control endpoints.
//
// The only mutable state apart from the recording is the per-(turn, step)
// counter behind scripted failures (fail_status) and dropped streams.
package fakemodel
