package activities

import (
	"errors"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
)

func TestStoreTranscriptRoundTrip(t *testing.T) {
	s, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first := []harness.Entry{{Kind: harness.KindUser, Text: "hi"}, {Kind: harness.KindToolCall, CallID: "c1", Name: "shell", Arguments: "{}"}}
	ref1, err := s.Append(nil, first)
	if err != nil {
		t.Fatal(err)
	}
	_, refs, err := s.Transcript(ref1)
	if err != nil {
		t.Fatal(err)
	}
	ref2, err := s.Append(refs, []harness.Entry{{Kind: harness.KindToolOutput, CallID: "c1", Text: "out"}})
	if err != nil {
		t.Fatal(err)
	}
	// A fresh store on the same directory (another worker, a restart)
	// reads the same transcript.
	s2, _ := NewStore(s.Dir())
	entries, _, err := s2.Transcript(ref2)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || entries[0].Text != "hi" || entries[2].Text != "out" {
		t.Fatalf("entries %+v", entries)
	}
	again, _ := s.Append(nil, first)
	if again != ref1 {
		t.Fatalf("the same transcript got two references: %s %s", ref1, again)
	}
	if _, _, err := s2.Transcript("ffffffffffffffffffffffffffffffff"); !errors.Is(err, ErrMissing) {
		t.Fatalf("missing blob: %v", err)
	}
}
