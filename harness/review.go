package harness

import _ "embed"

// ReviewPrompt is the instructions of a review turn (Codex's review mode,
// the app-server's review/start): what a finding is, how to rank and
// word it, and the JSON object the answer must be, whose fields
// (findings, overall_correctness, overall_explanation,
// overall_confidence_score) Codex's clients parse.
//
//go:embed review.md
var ReviewPrompt string
