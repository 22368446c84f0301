package workflows

import (
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
)

func TestWithModeLastsOneTurn(t *testing.T) {
	thread := ThreadConfig{DeveloperInstructions: "be brief",
		DynamicTools: make([]harness.ExternalTool, 1, 4)}
	thread.DynamicTools[0] = harness.ExternalTool{Name: "lookup"}
	mode := &TurnMode{Name: "plan", Instructions: "plan first",
		Tools: []harness.ExternalTool{{Name: "ask"}, {Name: "lookup", Description: "the mode's"}}}
	got := withMode(thread, mode)
	if got.DeveloperInstructions != "be brief\n\nplan first" {
		t.Errorf("instructions %q", got.DeveloperInstructions)
	}
	if len(got.DynamicTools) != 2 || got.DynamicTools[1].Name != "ask" || got.DynamicTools[0].Description != "" {
		t.Errorf("tools %+v", got.DynamicTools)
	}
	// The thread's settings are untouched, its spare capacity included.
	if thread.DeveloperInstructions != "be brief" || len(thread.DynamicTools) != 1 || thread.DynamicTools[:2][1].Name != "" {
		t.Errorf("the thread's config changed: %+v", thread)
	}
	if again := withMode(thread, nil); again.DeveloperInstructions != "be brief" || len(again.DynamicTools) != 1 {
		t.Errorf("no mode changed the config: %+v", again)
	}
}
