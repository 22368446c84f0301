package codexclients

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// These tests drive the binary through the official Codex TypeScript SDK
// (@openai/codex-sdk, pinned in e2e/codexsdk/package.json) with
// codexPathOverride pointing at it: the SDK spawns
// `interpreter exec --experimental-json ...` and parses its event lines,
// as it would with `codex`. e2e/codexsdk/run.mjs is the SDK program.

// codexSDKDir is the node project holding the SDK and run.mjs.
func codexSDKDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "e2e", "codexsdk"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

var npmCI struct {
	once sync.Once
	err  error
	out  []byte
}

// ensureCodexSDK installs the SDK (npm ci, from the committed lock file)
// unless it is installed already, so the test needs no setup step.
func ensureCodexSDK(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@openai", "codex-sdk", "package.json")); err == nil {
		return
	}
	npmCI.once.Do(func() {
		// --omit=optional (also in e2e/codexsdk/.npmrc): the SDK's
		// dependency @openai/codex pulls a ~400 MB native Codex binary as
		// an optional dependency, which is never run here.
		cmd := exec.Command("npm", "ci", "--omit=optional", "--no-audit", "--no-fund", "--prefix", dir)
		npmCI.out, npmCI.err = cmd.CombinedOutput()
	})
	if npmCI.err != nil {
		t.Fatalf("npm ci --prefix %s: %v\n%s", dir, npmCI.err, npmCI.out)
	}
}

// sdkStep is one line run.mjs prints per step.
type sdkStep struct {
	Step           int              `json:"step"`
	Op             string           `json:"op"`
	ThreadID       string           `json:"threadId"`
	FinalResponse  string           `json:"finalResponse"`
	ItemTypes      []string         `json:"itemTypes"`
	Items          []map[string]any `json:"items"`
	Usage          map[string]any   `json:"usage"`
	EventTypes     []string         `json:"eventTypes"`
	StreamThreadID string           `json:"streamThreadId"`
}

// runCodexSDK runs run.mjs with the given steps and returns its step lines.
func (e *env) runCodexSDK(steps ...map[string]any) []sdkStep {
	e.T.Helper()
	dir := codexSDKDir(e.T)
	ensureCodexSDK(e.T, dir)
	spec := map[string]any{
		"codexPath": e2etest.Binary,
		// The SDK gives the binary exactly this environment.
		"env": map[string]string{
			"PATH":             os.Getenv("PATH"),
			"HOME":             e.Home,
			"INTERPRETER_HOME": e.Home,
		},
		// Every option the SDK turns into a flag or a --config override is
		// set, so the test proves the binary accepts all of them.
		"apiKey":  "sk-codex-sdk-test",
		"baseUrl": e.Model.URL(),
		"config":  map[string]any{"max_steps": 20},
		"threadOptions": map[string]any{
			"workingDirectory":      e.Work,
			"model":                 "fake-model",
			"threadSource":          "interpreter-e2e",
			"sandboxMode":           "workspace-write",
			"approvalPolicy":        "never",
			"modelReasoningEffort":  "low",
			"networkAccessEnabled":  false,
			"webSearchMode":         "disabled",
			"additionalDirectories": []string{e.Work},
		},
		"steps": steps,
	}
	b, err := json.Marshal(spec)
	if err != nil {
		e.T.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "run.mjs"), string(b))
	cmd.Dir = dir
	var stdout, stderr e2etest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		e.T.Fatalf("node run.mjs: %v (after %s)\nstdout:\n%s\nstderr:\n%s", err, time.Since(start).Round(time.Millisecond), stdout.String(), stderr.String())
	}
	e.T.Logf("node run.mjs (%d steps) took %s", len(steps), time.Since(start).Round(time.Millisecond))
	var out []sdkStep
	ok := false
	for _, line := range e2etest.JSONLines(e.T, stdout.String()) {
		if line["ok"] == true {
			ok = true
			continue
		}
		raw, _ := json.Marshal(line)
		var s sdkStep
		if err := json.Unmarshal(raw, &s); err != nil {
			e.T.Fatalf("run.mjs line %s: %v", raw, err)
		}
		out = append(out, s)
	}
	if !ok || len(out) != len(steps) {
		e.T.Fatalf("run.mjs printed %d steps (ok=%v), want %d\nstdout:\n%s\nstderr:\n%s", len(out), ok, len(steps), stdout.String(), stderr.String())
	}
	return out
}

func step(op, prompt string, extra ...any) map[string]any {
	m := map[string]any{"op": op, "prompt": prompt}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

func sdkScript() *fakemodel.Script {
	return &fakemodel.Script{Turns: []fakemodel.Turn{
		{Steps: []fakemodel.Step{{Shell: "echo sdk-step"}, {Text: "first answer"}}},
		{Steps: []fakemodel.Step{{Text: "second answer"}}},
		{Steps: []fakemodel.Step{{Text: "third answer"}}},
	}}
}

// checkFirstTurn checks the SDK's view of turn one: a shell command, then
// the answer, and the usage.
func checkFirstTurn(t *testing.T, s sdkStep) {
	t.Helper()
	if s.ThreadID == "" {
		t.Fatalf("run 1: no thread id")
	}
	if s.FinalResponse != "first answer" {
		t.Errorf("run 1 finalResponse %q, want %q", s.FinalResponse, "first answer")
	}
	if !slices.Contains(s.ItemTypes, "command_execution") || !slices.Contains(s.ItemTypes, "agent_message") {
		t.Errorf("run 1 item types %v, want command_execution and agent_message", s.ItemTypes)
	}
	for _, it := range s.Items {
		if it["type"] != "command_execution" {
			continue
		}
		if out, _ := it["aggregated_output"].(string); !strings.Contains(out, "sdk-step") {
			t.Errorf("command item output %q lacks sdk-step", out)
		}
		if it["exit_code"] != float64(0) || it["status"] != "completed" {
			t.Errorf("command item %v: want exit_code 0, status completed", it)
		}
	}
	checkUsage(t, "run 1", s.Usage)
}

func checkUsage(t *testing.T, what string, u map[string]any) {
	t.Helper()
	if u == nil {
		t.Errorf("%s: no usage", what)
		return
	}
	for _, k := range []string{"input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "cache_write_input_tokens"} {
		if _, ok := u[k].(float64); !ok {
			t.Errorf("%s: usage %v lacks %s", what, u, k)
		}
	}
	if in, _ := u["input_tokens"].(float64); in <= 0 {
		t.Errorf("%s: usage input_tokens %v, want > 0", what, u["input_tokens"])
	}
}

// The SDK starts a thread, runs a turn with a shell step, resumes the
// thread by id from a new Thread object (a fresh exec process) and streams
// a third turn: each gets the answer, items and usage it expects, and the
// model sees the whole history every time.
func TestCodexSDKRunsAndResumesDurableThreads(t *testing.T) {
	e := newEnv(t, sdkScript())
	e.WriteSDKConfig()
	dev := e.StartDev()
	defer dev.Kill()
	image := filepath.Join(e.Work, "pixel.png")
	if err := os.WriteFile(image, []byte("\x89PNG\r\n\x1a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{"sdk_schema_field": map[string]any{"type": "string"}}}

	out := e.runCodexSDK(
		step("start", "prompt one"),
		step("resume", "prompt two", "cyberAccessProgram", "standard"),
		step("continue", "prompt three", "streamed", true, "images", []string{image}, "outputSchema", schema),
	)
	first, second, third := out[0], out[1], out[2]
	checkFirstTurn(t, first)

	if second.ThreadID != first.ThreadID {
		t.Errorf("resumed thread id %q, want %q", second.ThreadID, first.ThreadID)
	}
	if second.FinalResponse != "second answer" {
		t.Errorf("run 2 finalResponse %q, want %q", second.FinalResponse, "second answer")
	}
	checkUsage(t, "run 2", second.Usage)
	e2etest.CheckHistory(t, "the resumed turn's model request", e.RequestWith("prompt two"),
		"prompt one", "sdk-step", "first answer", "prompt two")

	if third.StreamThreadID != first.ThreadID || third.ThreadID != first.ThreadID {
		t.Errorf("streamed turn on thread %q/%q, want %q", third.StreamThreadID, third.ThreadID, first.ThreadID)
	}
	if third.FinalResponse != "third answer" {
		t.Errorf("streamed finalResponse %q, want %q", third.FinalResponse, "third answer")
	}
	ev := third.EventTypes
	if len(ev) < 4 || ev[0] != "thread.started" || ev[1] != "turn.started" || ev[len(ev)-1] != "turn.completed" ||
		!slices.Contains(ev, "item.completed") {
		t.Errorf("streamed event types %v, want thread.started, turn.started, ..., item.completed, ..., turn.completed", ev)
	}
	checkUsage(t, "streamed run", third.Usage)
	last, ok := e.Model.Server.LastRequest()
	if !ok {
		t.Fatal("no model request recorded")
	}
	// --output-schema reaches the model as an instruction.
	e2etest.CheckHistory(t, "the streamed turn's model request", string(last.Body),
		"prompt one", "sdk-step", "prompt two", "second answer", "prompt three", "sdk_schema_field")
}

// A thread started through the SDK survives a SIGKILL of the whole dev
// process (server and worker): after a restart the SDK resumes it by id
// and the model receives the whole history.
func TestCodexSDKResumeAfterDevRestart(t *testing.T) {
	e := newEnv(t, sdkScript())
	e.WriteSDKConfig()
	dev := e.StartDev()
	first := e.runCodexSDK(step("start", "prompt one"))[0]
	checkFirstTurn(t, first)

	dev.Kill()
	dev2 := e.StartDev()
	defer dev2.Kill()

	second := e.runCodexSDK(step("resume", "prompt two", "threadId", first.ThreadID))[0]
	if second.ThreadID != first.ThreadID {
		t.Errorf("resumed thread id %q, want %q", second.ThreadID, first.ThreadID)
	}
	if second.FinalResponse != "second answer" {
		t.Errorf("resumed finalResponse %q, want %q", second.FinalResponse, "second answer")
	}
	checkUsage(t, "resumed run", second.Usage)
	last, ok := e.Model.Server.LastRequest()
	if !ok {
		t.Fatal("no model request recorded")
	}
	e2etest.CheckHistory(t, "the model request after the restart", string(last.Body),
		"prompt one", "sdk-step", "first answer", "prompt two")
}
