package activities

import (
	"context"
	"reflect"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
)

// A fork keeps what was said (user messages, the instructions the harness
// added, each turn's final answer) and leaves the work behind: reasoning,
// tool calls and their outputs, and the answers that came with calls, the
// last of which is the spawn_agent call itself.
func TestForkTranscriptKeepsTheConversation(t *testing.T) {
	acts, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	parent := []harness.Entry{
		{Kind: harness.KindUser, Text: "# AGENTS.md\nbe terse", Context: true},
		{Kind: harness.KindUser, Text: "what does calc do?"},
		{Kind: harness.KindReasoning, Text: "look first", Encrypted: "enc"},
		{Kind: harness.KindAssistant, Text: "Let me look."},
		{Kind: harness.KindToolCall, CallID: "c1", Name: "exec_command", Arguments: `{"cmd":"ls"}`},
		{Kind: harness.KindToolOutput, CallID: "c1", Text: "calc.go"},
		{Kind: harness.KindAssistant, Text: "It adds numbers."},
		{Kind: harness.KindUser, Text: "investigate three bugs in parallel"},
		{Kind: harness.KindAssistant, Text: "Spawning helpers."},
		{Kind: harness.KindToolCall, CallID: "c2", Name: "spawn_agent", Arguments: `{"message":"bug 1","fork_context":true}`},
	}
	ref, err := acts.Store.Append(nil, parent)
	if err != nil {
		t.Fatal(err)
	}
	out, err := acts.ForkTranscript(context.Background(), ForkInput{Transcript: ref})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := acts.Store.Transcript(out.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	want := []harness.Entry{parent[0], parent[1], parent[6], parent[7]}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fork:\n got %+v\nwant %+v", got, want)
	}
	if out.Entries != len(parent) || out.Kept != len(want) {
		t.Errorf("counts %d/%d, want %d/%d", out.Kept, out.Entries, len(want), len(parent))
	}
	if out.Transcript == ref {
		t.Error("the fork is the parent's transcript itself")
	}
	again, err := acts.ForkTranscript(context.Background(), ForkInput{Transcript: ref})
	if err != nil || again.Transcript != out.Transcript {
		t.Errorf("a retried fork gives %v, %v; want the same reference", again, err)
	}
}
