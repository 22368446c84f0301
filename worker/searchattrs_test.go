package worker

import (
	"strings"
	"testing"
)

// Where the client may not register them, the report names each missing
// attribute in a command an admin can paste.
func TestSearchAttributeSetupTellsAnAdminWhatToRun(t *testing.T) {
	s := SearchAttributeSetup{Missing: []string{"InterpreterCwd", "InterpreterLastActivity"}, Denied: true}
	got := s.Describe("temporal.example:7233", "agents")
	for _, want := range []string{
		"permission denied",
		"temporal operator search-attribute create --address temporal.example:7233 --namespace agents --name InterpreterCwd --type Keyword",
		"temporal operator search-attribute create --address temporal.example:7233 --namespace agents --name InterpreterLastActivity --type Datetime",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in:\n%s", want, got)
		}
	}
	if (SearchAttributeSetup{}).Describe("a", "b") != "" {
		t.Fatal("nothing to say when all is registered")
	}
}
