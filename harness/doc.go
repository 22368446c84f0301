// Package harness owns how a conversation is shown to a model family: the
// conversation entries, the harness interface (system prompt, tool names and
// schemas, mapping of tool calls onto the core tools), rendering a request for
// each wire API and parsing the answer back into entries. It is pure: no
// Temporal, no I/O.
package harness
