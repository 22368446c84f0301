package harness_test

import (
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
	_ "github.com/interpreter-dev/interpreter/harness/all"
)

func TestListTextNamesEveryHarness(t *testing.T) {
	text := harness.ListText()
	for _, name := range harness.Names() {
		if !strings.Contains(text, "\n"+name+" ") {
			t.Errorf("ListText lacks %s:\n%s", name, text)
		}
	}
	if !strings.Contains(text, "Bash→shell") || !strings.Contains(text, "Without `harness` in config") {
		t.Errorf("ListText:\n%s", text)
	}
}

func TestDescribeRequest(t *testing.T) {
	h, err := harness.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	req := harness.Request{Model: "m", Harness: h, Env: harness.Env{Model: "m", Cwd: "/w"},
		Conversation: []harness.Entry{{Kind: harness.KindUser, Text: "<your prompt>"}}}
	for _, wire := range []string{harness.WireMessages, harness.WireChat} {
		text, err := harness.DescribeRequest(req, wire, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"harness claude-code over " + wire + ", model m\n", "--- system prompt ---\n", "Working directory: /w",
			"--- tools (as sent) ---\n", `"Bash"`, "--- other request fields ---\n"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", wire, want, text)
			}
		}
	}
	text, err := harness.DescribeRequest(req, harness.WireMessages, true)
	if err != nil || !strings.HasPrefix(text, "{\n") || !strings.HasSuffix(text, "}\n") || !strings.Contains(text, "your prompt") {
		t.Errorf("as JSON: %v\n%s", err, text)
	}
}
