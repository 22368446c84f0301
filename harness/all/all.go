// Package all registers every harness; import it for its side effect.
package all

import (
	_ "github.com/interpreter-dev/interpreter/harness/claudecode"   // claude-code
	_ "github.com/interpreter-dev/interpreter/harness/codex"        // codex
	_ "github.com/interpreter-dev/interpreter/harness/deepseektui"  // deepseek-tui
	_ "github.com/interpreter-dev/interpreter/harness/kimicli"      // kimi-cli
	_ "github.com/interpreter-dev/interpreter/harness/minimal"      // minimal
	_ "github.com/interpreter-dev/interpreter/harness/minisweagent" // mini-swe-agent
	_ "github.com/interpreter-dev/interpreter/harness/opencode"     // opencode
	_ "github.com/interpreter-dev/interpreter/harness/qwencode"     // qwen-code
	_ "github.com/interpreter-dev/interpreter/harness/sweagent"     // swe-agent
	_ "github.com/interpreter-dev/interpreter/harness/terminus2"    // terminus-2
)
