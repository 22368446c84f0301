// Package all registers every harness; import it for its side effect.
package all

import (
	_ "github.com/interpreter-dev/interpreter/harness/claudecode" // claude-code
	_ "github.com/interpreter-dev/interpreter/harness/codex"      // codex
	_ "github.com/interpreter-dev/interpreter/harness/kimicli"    // kimi-cli
	_ "github.com/interpreter-dev/interpreter/harness/qwencode"   // qwen-code
)
