// Package protocol holds the messages of Codex's app-server JSON-RPC
// protocol that this server sends or reads, as Go types: the thread, turn
// and item shapes, the responses of the methods served, the notifications
// and the requests the server makes of its client.
//
// Field names, enum values and which fields are null rather than absent
// follow the reference JSON Schemas (`codex app-server
// generate-json-schema` of the releases in [Versions]). A message
// satisfies every release's schema: a field one release requires and an
// older one does not know is always sent (neither closes its objects to
// extra fields), and its doc comment names the release that added it
// ("Since V0171"). Where the releases differ for what this server sends:
// Thread.ProjectID, ToolRequestUserInputParams.IsBlocking (both required
// since 0.171) and McpServerStatus.RuntimeStatus (added in 0.171); the
// collaborationMode, thread/settings and backgroundTerminals methods are
// 0.171's experimental ones. The tests of this package and the server's
// (dev/codexschema) check the messages against each bundle.
//
// A pointer field is written as null when nil; a field tagged omitempty
// is left out, as the reference leaves it out.
package protocol

// The Codex releases whose app-server clients this protocol serves,
// oldest first.
const (
	V0140 = "0.140"
	V0171 = "0.171"
)

// Versions lists the releases, oldest first.
var Versions = []string{V0140, V0171}
