package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
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
	dev := e.startDev()
	defer dev.kill()
	a := e.appServer(loadSchema(t), "-c", "features.multi_agent=true")
	a.handshake()
	res, _ := a.call("thread/start", map[string]any{"approvalPolicy": "untrusted", "sandbox": "workspace-write", "cwd": e.work})
	root := res["thread"].(map[string]any)["id"].(string)
	a.read(30 * time.Second) // thread/started
	res, _ = a.call("turn/start", map[string]any{"threadId": root, "input": []any{map[string]any{"type": "text", "text": "delegate the marking"}}})
	rootTurn := res["turn"].(map[string]any)["id"].(string)
	var fromSub, fromRoot int
	for {
		m := a.read(120 * time.Second)
		if m["method"] == "item/commandExecution/requestApproval" {
			p := noteParams(m)
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
			a.answer(m, map[string]any{"decision": "accept"})
		}
		if m["method"] == "turn/completed" && noteParams(m)["turn"].(map[string]any)["id"] == rootTurn {
			if st := noteParams(m)["turn"].(map[string]any)["status"]; st != "completed" {
				t.Fatalf("root turn %v", st)
			}
			break
		}
	}
	if fromSub != 1 || fromRoot != 1 {
		t.Fatalf("approvals asked: %d of the sub-agent, %d of the root (want one each)", fromSub, fromRoot)
	}
	if b, err := os.ReadFile(filepath.Join(e.work, "by-sub-agent")); err != nil || string(b) != "once\n" {
		t.Fatalf("the sub-agent's command: %q, %v (want it run once)", b, err)
	}
}
