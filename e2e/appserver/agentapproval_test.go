package appserver

import (
	"context"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// A sub-agent's command that the untrusted policy asks about is asked of
// the app-server client following the root thread: a requestApproval
// with the sub-agent's threadId and turnId (checked against Codex's
// schema). The client accepts it, the sub-agent's command runs once, and
// the root's own command (which waits for it) sees it done.
func TestAppServerSubAgentApprovalReachesTheRoot(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "delegate", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{{Name: "spawn_agent", Arguments: json.RawMessage(`{"message":"mark the file"}`)}}},
			{Shell: "for i in $(seq 600); do [ -f by-sub-agent ] && break; sleep 0.1; done; cat by-sub-agent"},
			{Text: "the sub-agent marked it"},
		}},
		{Match: "mark the file", Steps: []fakemodel.Step{
			{Shell: "echo once >> by-sub-agent"},
			{Text: "marked"},
		}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t), "-c", "features.multi_agent=true")
	a.Handshake()
	res, _ := a.Call("thread/start", map[string]any{"approvalPolicy": "untrusted", "sandbox": "workspace-write", "cwd": e.Work})
	root := res["thread"].(map[string]any)["id"].(string)
	a.Read(30 * time.Second) // thread/started
	res, _ = a.Call("turn/start", map[string]any{"threadId": root, "input": []any{map[string]any{"type": "text", "text": "delegate the marking"}}})
	rootTurn := res["turn"].(map[string]any)["id"].(string)
	var fromSub, fromRoot int
	subSeen := map[string]int{} // the sub-agent's own notifications, by method
	for {
		m := a.Read(120 * time.Second)
		if p, ok := m["params"].(map[string]any); ok && m["id"] == nil {
			if tid, _ := p["threadId"].(string); tid != "" && tid != root {
				subSeen[m["method"].(string)]++
				if it, _ := p["item"].(map[string]any); m["method"] == "item/completed" && it["type"] == "commandExecution" && it["command"] == "echo once >> by-sub-agent" {
					subSeen["command completed"]++
				}
			}
		}
		if m["method"] == "item/commandExecution/requestApproval" {
			p := e2etest.NoteParams(m)
			switch {
			case p["threadId"] == root && p["turnId"] == rootTurn:
				fromRoot++
			case p["threadId"] != root && p["command"] == "echo once >> by-sub-agent":
				if tid, _ := p["turnId"].(string); tid != p["threadId"].(string)+"/turn-1" {
					t.Fatalf("sub-agent approval names turn %v", p["turnId"])
				}
				fromSub++
			default:
				t.Fatalf("approval request %v", p)
			}
			a.Answer(m, map[string]any{"decision": "accept"})
		}
		if m["method"] == "turn/completed" && e2etest.NoteParams(m)["turn"].(map[string]any)["id"] == rootTurn {
			if st := e2etest.NoteParams(m)["turn"].(map[string]any)["status"]; st != "completed" {
				t.Fatalf("root turn %v", st)
			}
			break
		}
	}
	if fromSub != 1 || fromRoot != 1 {
		t.Fatalf("approvals asked: %d of the sub-agent, %d of the root (want one each)", fromSub, fromRoot)
	}
	// As Codex's app-server does, the root's client also gets the
	// sub-agent's own stream, with its threadId. It is followed apart from
	// the root's, so some of it may come after the root's turn/completed.
	for subSeen["turn/started"] == 0 || subSeen["command completed"] == 0 {
		m := a.Read(30 * time.Second)
		p, _ := m["params"].(map[string]any)
		if tid, _ := p["threadId"].(string); tid == "" || tid == root || m["id"] != nil {
			continue
		}
		subSeen[m["method"].(string)]++
		if it, _ := p["item"].(map[string]any); m["method"] == "item/completed" && it["type"] == "commandExecution" && it["command"] == "echo once >> by-sub-agent" {
			subSeen["command completed"]++
		}
	}
	if subSeen["turn/started"] != 1 || subSeen["command completed"] != 1 {
		t.Errorf("the sub-agent's notifications on the root's connection: %v (want its turn/started and its command's item/completed)", subSeen)
	}
	if b, err := os.ReadFile(filepath.Join(e.Work, "by-sub-agent")); err != nil || string(b) != "once\n" {
		t.Fatalf("the sub-agent's command: %q, %v (want it run once)", b, err)
	}
}

// `interpreter exec` on a terminal (util-linux `script` gives it one) asks
// the sub-agent's approval as it asks its own, naming the sub-agent's
// thread; answering y runs the sub-agent's command once.
func TestExecOnATerminalAsksASubAgentsApproval(t *testing.T) {
	if _, err := osexec.LookPath("script"); err != nil {
		t.Fatal("this test needs util-linux script(1) for a terminal")
	}
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "delegate", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{{Name: "spawn_agent", Arguments: json.RawMessage(`{"message":"mark the file"}`)}}},
			{Shell: "for i in $(seq 600); do [ -f by-sub-agent ] && break; sleep 0.1; done; cat by-sub-agent"},
			{Text: "the sub-agent marked it"},
		}},
		{Match: "mark the file", Steps: []fakemodel.Step{
			{Shell: "echo once >> by-sub-agent"},
			{Text: "marked"},
		}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	args := append([]string{e2etest.Binary, "exec"}, e.Config()...)
	args = append(args, "-c", "temporal.embedded=false", "-c", "features.multi_agent=true",
		"--approval-policy", "untrusted", "--sandbox", "workspace-write", "delegate the marking")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, "script", "-qefc", strings.Join(quoted, " "), "/dev/null")
	cmd.Dir = e.Work
	cmd.Env = append(os.Environ(), "INTERPRETER_HOME="+e.Home, "OPENAI_API_KEY=")
	// Two approvals will be asked (the root's command and the
	// sub-agent's): the terminal holds the answers until each is read.
	cmd.Stdin = strings.NewReader("y\ny\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("exec on a terminal: %v\n%s", err, out)
	}
	text := string(out)
	if !strings.Contains(text, "[a sub-agent asks]") || !strings.Contains(text, "$ echo once >> by-sub-agent") ||
		strings.Count(text, "Approve item_") < 2 || !strings.Contains(text, "the sub-agent marked it") {
		t.Fatalf("exec's output:\n%s", text)
	}
	if b, err := os.ReadFile(filepath.Join(e.Work, "by-sub-agent")); err != nil || string(b) != "once\n" {
		t.Fatalf("the sub-agent's command: %q, %v (want it run once)", b, err)
	}
}
