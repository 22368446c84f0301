package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// MaxNameLen is the longest tool name providers accept
// (^[a-zA-Z0-9_-]{1,64}$).
const MaxNameLen = 64

// Namer gives the tools of a turn the names the model sees:
// mcp__<server>__<tool> with every character outside [a-zA-Z0-9_-]
// replaced by '_'. A name that would be too long, or that is already
// taken (two tools that differ only in replaced characters), is cut and
// ends in '_' and eight hex digits of a hash of the server and tool names,
// so the same tools get the same names in every turn when they are named
// in the same order.
type Namer struct {
	taken map[string]bool
}

// NewNamer returns a Namer with the given names already taken (the
// harness's own tools, dynamic tools).
func NewNamer(taken ...string) *Namer {
	n := &Namer{taken: map[string]bool{}}
	for _, t := range taken {
		n.taken[t] = true
	}
	return n
}

// Name returns the unique model-facing name of a server's tool.
func (n *Namer) Name(server, tool string) string {
	name := sanitize("mcp__" + server + "__" + tool)
	if len(name) > MaxNameLen || n.taken[name] {
		sum := sha256.Sum256([]byte(server + "\x00" + tool))
		suffix := "_" + hex.EncodeToString(sum[:4])
		if len(name) > MaxNameLen-len(suffix) {
			name = name[:MaxNameLen-len(suffix)]
		}
		name += suffix
		for i := 2; n.taken[name]; i++ {
			tail := "_" + strconv.Itoa(i)
			name = name[:min(len(name), MaxNameLen-len(tail))] + tail
		}
	}
	n.taken[name] = true
	return name
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}
