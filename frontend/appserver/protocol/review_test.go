package protocol_test

import (
	"testing"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// The review items and review/start's response satisfy every release.
func TestReviewTypesMatchEveryRelease(t *testing.T) {
	v := load(t)
	check(t, v, "v2/ThreadItem", protocol.EnteredReviewModeItem{ID: "e", Review: "current changes"})
	check(t, v, "v2/ThreadItem", protocol.ExitedReviewModeItem{ID: "x", Review: "No findings."})
	turn := protocol.Turn{ID: "t/turn-1", Items: []protocol.ThreadItem{}, ItemsView: protocol.ItemsNotLoaded, Status: "inProgress"}
	check(t, v, "v2/ReviewStartResponse", protocol.ReviewStartResponse{Turn: turn, ReviewThreadID: "t"})
}
