package activities

import (
	"context"
	"fmt"

	"github.com/interpreter-dev/interpreter/harness"
)

// ForkInput asks for the conversation a forked sub-agent starts with
// (spawn_agent's fork_context).
type ForkInput struct {
	// Transcript is the parent's transcript manifest when it spawned.
	Transcript string `json:"transcript"`
}

// ForkOutput is the forked conversation.
type ForkOutput struct {
	Transcript string `json:"transcript"`
	// Entries and Kept count the parent's entries and those the copy has.
	Entries int `json:"entries"`
	Kept    int `json:"kept"`
}

// ForkTranscript writes the copy of a parent's conversation that a forked
// sub-agent starts from, as Codex forks one: the user messages (with the
// instructions and context the harness added) and the answers that ended
// a turn. Reasoning, tool calls and their outputs stay behind: the
// parent's last answer is the spawn_agent call itself, which has no
// output yet and which the child must not read as its own. The entries
// are content-addressed, so the copy costs one new manifest.
func (a *Activities) ForkTranscript(_ context.Context, in ForkInput) (*ForkOutput, error) {
	entries, refs, err := a.Store.Transcript(in.Transcript)
	if err != nil {
		return nil, fmt.Errorf("reading the parent's transcript: %w", err)
	}
	var kept []string
	for i, e := range entries {
		if keepInFork(entries, i, e) {
			kept = append(kept, refs[i])
		}
	}
	ref, err := a.Store.Append(kept, nil)
	if err != nil {
		return nil, fmt.Errorf("writing the forked transcript: %w", err)
	}
	return &ForkOutput{Transcript: ref, Entries: len(entries), Kept: len(kept)}, nil
}

// keepInFork tells whether entry i goes into a fork: user messages, and
// assistant messages that no tool call follows before the next user
// message (a turn's final answer).
func keepInFork(entries []harness.Entry, i int, e harness.Entry) bool {
	switch e.Kind {
	case harness.KindUser:
		return true
	case harness.KindAssistant:
		for _, next := range entries[i+1:] {
			switch next.Kind {
			case harness.KindUser:
				return true
			case harness.KindToolCall:
				return false
			}
		}
		return true
	}
	return false
}
