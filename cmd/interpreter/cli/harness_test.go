package cli

import (
	"bytes"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("INTERPRETER_HOME", t.TempDir())
	var out, errb bytes.Buffer
	code := Run(args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestHarnessList(t *testing.T) {
	code, out, errs := run(t, "harness", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"claude-code", "messages, chat", "Bash→shell", "TodoWrite→update_plan",
		"kimi-cli", "StrReplaceFile→edit", "qwen-code", "search_file_content→grep",
		"deepseek-tui", "opencode", "minimal", "swe-agent", "mini-swe-agent", "terminus-2", "text loop",
		"codex", "responses, chat", "apply_patch→apply_patch",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("harness list lacks %q:\n%s", want, out)
		}
	}
}

func TestHarnessShow(t *testing.T) {
	code, out, errs := run(t, "harness", "show", "claude-code", "-m", "claude-sonnet-4-5", "-C", "/tmp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"harness claude-code over messages", "--- system prompt ---", "Working directory: /tmp",
		`"name": "Bash"`, `"input_schema"`, `"budget_tokens": 8000`} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "harness", "show", "kimi-cli", "-m", "kimi-k2")
	if code != 0 || !strings.Contains(out, "# Working reliably") || !strings.Contains(out, `"name": "StrReplaceFile"`) {
		t.Fatalf("kimi-cli: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "-c", "harness_guidance=false", "harness", "show", "kimi-cli")
	if code != 0 || strings.Contains(out, "# Working reliably") {
		t.Fatalf("harness_guidance=false still shows the block: exit %d", code)
	}
	code, out, _ = run(t, "harness", "show", "swe-agent", "--wire", "chat")
	if code != 0 || !strings.Contains(out, "none (text loop") {
		t.Fatalf("swe-agent: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "harness", "show", "codex", "--json")
	if code != 0 || !strings.Contains(out, `"instructions"`) || !strings.Contains(out, `your prompt`) {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
}

func TestHarnessShowBadInput(t *testing.T) {
	code, _, errs := run(t, "harness", "show", "nope")
	if code != 2 || !strings.Contains(errs, `unknown harness "nope" (known: claude-code, codex`) {
		t.Fatalf("unknown: exit %d %s", code, errs)
	}
	code, _, errs = run(t, "harness", "show", "kimi-cli", "--wire", "messages")
	if code != 2 || !strings.Contains(errs, "harnesses for messages: claude-code") {
		t.Fatalf("mismatch: exit %d %s", code, errs)
	}
}
