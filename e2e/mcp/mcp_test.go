package mcp

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// These tests drive `interpreter mcp-server` with the official MCP
// TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
// e2e/mcpclient/package.json); e2e/mcpclient/client.mjs is the program.

var mcpNpmCI struct {
	once sync.Once
	err  error
	out  []byte
}

// mcpClientDir installs the client (npm ci, from the committed lock file)
// unless it is installed already, and returns its directory.
func mcpClientDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "e2e", "mcpclient"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		return dir
	}
	mcpNpmCI.once.Do(func() {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--prefix", dir)
		mcpNpmCI.out, mcpNpmCI.err = cmd.CombinedOutput()
	})
	if mcpNpmCI.err != nil {
		t.Fatalf("npm ci --prefix %s: %v\n%s", dir, mcpNpmCI.err, mcpNpmCI.out)
	}
	return dir
}

// mcpRun is one run of client.mjs: its own mcp-server child, steps run in
// order, every line it prints kept as it comes.
type mcpRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *e2etest.SyncBuffer
	done   chan struct{}

	mu    sync.Mutex
	lines []map[string]any
}

func (e *env) startMCPClient(steps ...map[string]any) *mcpRun {
	e.T.Helper()
	return e.startMCPClientElicit(nil, steps...)
}

// startMCPClientElicit starts a client that declares the elicitation
// capability and answers with elicit ("never": it never answers); nil
// declares no capability.
func (e *env) startMCPClientElicit(elicit any, steps ...map[string]any) *mcpRun {
	e.T.Helper()
	dir := mcpClientDir(e.T)
	m := map[string]any{
		"command": e2etest.Binary,
		"args":    []string{"mcp-server"},
		"env":     map[string]string{"PATH": os.Getenv("PATH"), "HOME": e.Home, "INTERPRETER_HOME": e.Home},
		"cwd":     e.Work,
		"steps":   steps,
	}
	if elicit != nil {
		m["elicit"] = elicit
	}
	spec, err := json.Marshal(m)
	if err != nil {
		e.T.Fatal(err)
	}
	r := &mcpRun{t: e.T, cmd: exec.Command("node", filepath.Join(dir, "client.mjs"), string(spec)), stderr: &e2etest.SyncBuffer{}, done: make(chan struct{})}
	r.cmd.Dir = dir
	r.cmd.Stderr = r.stderr
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsed": sc.Text()}
			}
			r.mu.Lock()
			r.lines = append(r.lines, m)
			r.mu.Unlock()
		}
		_ = r.cmd.Wait()
		close(r.done)
	}()
	e.T.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

func (r *mcpRun) snapshot() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

func (r *mcpRun) diag() string {
	var b strings.Builder
	for _, l := range r.snapshot() {
		j, _ := json.Marshal(l)
		fmt.Fprintf(&b, "%s\n", j)
	}
	return fmt.Sprintf("client stdout:\n%s\nclient+server stderr:\n%s", b.String(), r.stderr.String())
}

// find returns the first line that satisfies match, waiting for it.
func (r *mcpRun) find(what string, timeout time.Duration, match func(map[string]any) bool) map[string]any {
	r.t.Helper()
	var found map[string]any
	e2etest.WaitUntil(r.t, func() bool {
		for _, l := range r.snapshot() {
			if match(l) {
				found = l
				return true
			}
		}
		return false
	}, timeout, what, r.diag)
	return found
}

func (r *mcpRun) step(i int, timeout time.Duration) map[string]any {
	r.t.Helper()
	return r.find(fmt.Sprintf("step %d", i), timeout, func(l map[string]any) bool { return l["step"] == float64(i) })
}

// finish waits for the client to print ok and exit.
func (r *mcpRun) finish(timeout time.Duration) {
	r.t.Helper()
	r.find("the client to finish", timeout, func(l map[string]any) bool { return l["ok"] == true })
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		r.t.Fatalf("client did not exit\n%s", r.diag())
	}
}

// sessions are the thread ids of the session_configured events so far.
func (r *mcpRun) sessions() []string {
	var ids []string
	for _, l := range r.snapshot() {
		ev, _ := l["event"].(map[string]any)
		msg, _ := ev["msg"].(map[string]any)
		if msg["type"] == "session_configured" {
			ids = append(ids, msg["session_id"].(string))
		}
	}
	return ids
}

func mcpCall(tool string, args map[string]any) map[string]any {
	return map[string]any{"op": "call", "tool": tool, "arguments": args}
}

// callResult checks a call step succeeded and returns its structured
// content and text.
func callResult(t *testing.T, r *mcpRun, s map[string]any) (threadID, content, text string) {
	t.Helper()
	res, ok := s["result"].(map[string]any)
	if !ok {
		t.Fatalf("step %v failed: %v\n%s", s["step"], s["error"], r.diag())
	}
	if res["isError"] == true {
		t.Fatalf("step %v: isError result %v\n%s", s["step"], res, r.diag())
	}
	sc, _ := res["structuredContent"].(map[string]any)
	threadID, _ = sc["threadId"].(string)
	content, _ = sc["content"].(string)
	if blocks, _ := res["content"].([]any); len(blocks) > 0 {
		text, _ = blocks[0].(map[string]any)["text"].(string)
	}
	return threadID, content, text
}

func mcpScript() *fakemodel.Script {
	return &fakemodel.Script{Turns: []fakemodel.Turn{
		// The command runs its first quarter second inside the workflow
		// task, then in an activity whose heartbeats its output streams
		// from: two seconds leave a loaded machine time to show a delta.
		{Match: "prompt one", Steps: []fakemodel.Step{{Shell: "echo mcp-step; sleep 2; echo mcp-later"}, {Text: "first answer, streamed", ChunkDelayMs: 150}}},
		{Match: "slow prompt", Steps: []fakemodel.Step{{DelayMs: 6000, Text: "slow answer"}}},
		{Match: "prompt three", Steps: []fakemodel.Step{{Text: "third answer"}}},
		{Match: "prompt four", Steps: []fakemodel.Step{{Text: "fourth answer"}}},
	}}
}

// The TypeScript SDK client lists the tools and runs a codex call; the
// server is SIGKILLed in the middle of a second codex call; a new client
// and server then continue both threads with codex-reply, and the model
// receives each thread's whole history, the killed call's turn included.
func TestMCPServerDurableAcrossSIGKILL(t *testing.T) {
	e := newEnv(t, mcpScript())
	e.WriteSDKConfig()
	dev := e.StartDev()
	defer dev.Kill()

	start := time.Now()
	run1 := e.startMCPClient(
		map[string]any{"op": "list"},
		mcpCall("codex", map[string]any{"prompt": "prompt one", "cwd": ".", "approval-policy": "never", "sandbox": "workspace-write"}),
		mcpCall("codex", map[string]any{"prompt": "slow prompt"}),
	)
	checkToolList(t, run1, run1.step(0, 2*time.Minute))
	first := run1.step(1, 2*time.Minute)
	threadA, content, text := callResult(t, run1, first)
	t.Logf("codex call answered after %s", time.Since(start).Round(time.Millisecond))
	if threadA == "" || content != "first answer, streamed" || text != content {
		t.Errorf("codex: threadId %q content %q text %q, want a thread and %q", threadA, content, text, "first answer, streamed")
	}
	// The command's output streams while it runs (exec_command_output_delta,
	// read from the worker's heartbeats in the dev server, another process).
	wantTypes := []string{"session_configured", "task_started", "exec_command_begin", "exec_command_output_delta",
		"exec_command_end", "agent_message_delta", "agent_message", "token_count", "task_complete"}
	types := slices.Compact(anyStrings(first["eventTypes"]))
	if got := strings.Join(types, ","); got != strings.Join(wantTypes, ",") {
		t.Errorf("codex/event types %s, want %s (deltas counted once)", got, strings.Join(wantTypes, ","))
	}
	if live := liveOutput(run1); !strings.Contains(live, "mcp-step\n") {
		t.Errorf("exec_command_output_delta chunks %q, want the command's first line while it ran", live)
	}
	// The answer streams slowly: its text comes in several deltas that add
	// up to the message.
	if deltas := agentDeltas(run1); len(deltas) < 2 || strings.Join(deltas, "") != content {
		t.Errorf("agent_message_delta %q, want several adding up to %q", deltas, content)
	}
	// The TS client drops progress notifications it handles after the
	// response (its handlers run a tick late), so only some are counted.
	if p, _ := first["progress"].(float64); p < 1 {
		t.Errorf("no progress notifications reached the client")
	}

	// Kill the server as soon as the slow call's thread exists: its turn's
	// model call answers only after 6 s. (Events of a turn whose model
	// call runs as a local activity reach the server late, when the
	// workflow task heartbeats, so they are no trigger.)
	e2etest.WaitUntil(t, func() bool { return len(run1.sessions()) == 2 }, time.Minute, "the slow call's session", run1.diag)
	pid := int(run1.find("the server pid", time.Second, func(l map[string]any) bool { return l["pid"] != nil })["pid"].(float64))
	sessions := run1.sessions()
	if len(sessions) != 2 || sessions[0] != threadA {
		t.Fatalf("session_configured thread ids %v, want %s and the slow call's\n%s", sessions, threadA, run1.diag())
	}
	threadB := sessions[1]
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing mcp-server %d: %v", pid, err)
	}
	t.Logf("killed mcp-server %d at %s", pid, time.Since(start).Round(time.Millisecond))
	killed := run1.step(2, time.Minute)
	if killed["error"] == nil {
		t.Fatalf("the killed call answered: %v", killed)
	}
	run1.finish(time.Minute)
	t.Logf("first client done at %s", time.Since(start).Round(time.Millisecond))

	// A new client and server continue both threads by id.
	run2 := e.startMCPClient(
		mcpCall("codex-reply", map[string]any{"threadId": threadB, "prompt": "prompt three"}),
		mcpCall("codex-reply", map[string]any{"conversationId": threadA, "prompt": "prompt four"}),
		mcpCall("codex", map[string]any{"prompt": "never runs", "config": map[string]any{"max_steps": "many"}}),
		mcpCall("codex-reply", map[string]any{"threadId": "no-such-thread", "prompt": "hello?"}),
	)
	third := run2.step(0, 2*time.Minute)
	t.Logf("reply answered at %s", time.Since(start).Round(time.Millisecond))
	gotThread, content, text := callResult(t, run2, third)
	if gotThread != threadB || content != "third answer" || text != "third answer" {
		t.Errorf("codex-reply after SIGKILL: threadId %q content %q text %q, want %s / third answer", gotThread, content, text, threadB)
	}
	// The killed call's turn was still running: the reply reported it to
	// its end before running the new prompt.
	if types := anyStrings(third["eventTypes"]); strings.Count(strings.Join(types, ","), "task_complete") != 2 {
		t.Errorf("reply events %v, want the running turn's, then its own\n%s", types, run2.diag())
	}
	run2.find("the slow turn's answer reported", time.Second, func(l map[string]any) bool {
		ev, _ := l["event"].(map[string]any)
		msg, _ := ev["msg"].(map[string]any)
		return msg["type"] == "agent_message" && msg["message"] == "slow answer"
	})
	e2etest.CheckHistory(t, "the model request after the SIGKILL", e.RequestWith("prompt three"), "slow prompt", "slow answer", "prompt three")

	fourth := run2.step(1, 2*time.Minute)
	gotThread, content, _ = callResult(t, run2, fourth)
	if gotThread != threadA || content != "fourth answer" {
		t.Errorf("codex-reply by conversationId: threadId %q content %q, want %s / fourth answer", gotThread, content, threadA)
	}
	last, ok := e.Model.Server.LastRequest()
	if !ok {
		t.Fatal("no model request recorded")
	}
	e2etest.CheckHistory(t, "the last model request", string(last.Body), "prompt one", "mcp-step", "first answer", "prompt four")
	if strings.Contains(string(last.Body), "slow prompt") {
		t.Errorf("thread %s's request holds the other thread's prompt", threadA)
	}
	bad := run2.step(2, time.Minute)
	if res, _ := bad["result"].(map[string]any); res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "max_steps") {
		t.Errorf("a config override that does not load: %v, want an isError result naming max_steps", bad)
	}
	unknown := run2.step(3, time.Minute)
	if res, _ := unknown["result"].(map[string]any); res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "thread not found: no-such-thread") {
		t.Errorf("codex-reply on an unknown thread: %v, want an isError result naming it", unknown)
	}
	run2.finish(time.Minute)
	// The killed call's turn ran once: one model request of its own.
	slow := 0
	for _, r := range e.Model.Server.RequestsContaining("slow prompt") {
		if !strings.Contains(string(r.Body), "prompt three") {
			slow++
		}
	}
	if slow != 1 {
		t.Errorf("%d model requests for the killed call's turn, want 1", slow)
	}
	t.Logf("whole test took %s", time.Since(start).Round(time.Millisecond))
}

// agentDeltas are the agent_message_delta texts a client saw.
func agentDeltas(r *mcpRun) []string {
	var out []string
	for _, l := range r.snapshot() {
		ev, _ := l["event"].(map[string]any)
		msg, _ := ev["msg"].(map[string]any)
		if msg["type"] == "agent_message_delta" {
			out = append(out, msg["delta"].(string))
		}
	}
	return out
}

// liveOutput joins the decoded chunks of the exec_command_output_delta
// events a client saw.
func liveOutput(r *mcpRun) string {
	var b strings.Builder
	for _, l := range r.snapshot() {
		ev, _ := l["event"].(map[string]any)
		msg, _ := ev["msg"].(map[string]any)
		if msg["type"] != "exec_command_output_delta" || msg["stream"] != "stdout" {
			continue
		}
		chunk, _ := base64.StdEncoding.DecodeString(msg["chunk"].(string))
		b.Write(chunk)
	}
	return b.String()
}

func checkToolList(t *testing.T, r *mcpRun, s map[string]any) {
	t.Helper()
	tools, _ := s["tools"].([]any)
	var names []string
	for _, x := range tools {
		tool := x.(map[string]any)
		names = append(names, tool["name"].(string))
		in, _ := tool["inputSchema"].(map[string]any)
		if in["additionalProperties"] != false || tool["outputSchema"] == nil {
			t.Errorf("tool %v: inputSchema.additionalProperties %v, outputSchema %v", tool["name"], in["additionalProperties"], tool["outputSchema"])
		}
	}
	if !slices.Equal(names, []string{"codex", "codex-reply"}) {
		t.Errorf("tools %v, want codex and codex-reply\n%s", names, r.diag())
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}
