package workflows

import "github.com/interpreter-dev/interpreter/harness"

// ReviewInstructions are a review turn's instructions
// ([harness.ReviewPrompt]), for the front ends, which reach harness only
// through this package. A front end sends them as the turn's
// [TurnMode] instructions: a review is an ordinary turn.
var ReviewInstructions = harness.ReviewPrompt
