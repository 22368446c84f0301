package appserver

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// threadsList runs `interpreter threads list --all --json` against the
// running dev server.
func (e *env) threadsList(t *testing.T) []map[string]any {
	t.Helper()
	p := e.Start(append(append([]string{"threads", "list", "--all", "--json"}, e.Config()...), "-c", "temporal.embedded=false")...)
	if code := p.Wait(60 * time.Second); code != 0 {
		t.Fatalf("threads list: exit %d\n%s", code, p.Stderr.String())
	}
	return e2etest.JSONLines(t, p.Stdout.String())
}

func listed(list []map[string]any, id string) map[string]any {
	for _, s := range list {
		if s["thread_id"] == id {
			return s
		}
	}
	return nil
}

func storeBlobs(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && len(d.Name()) == 32 {
			n++
		}
		return nil
	})
	return n
}

// The built binary, as the Codex TUI drives it: a thread with no turn
// lists as idle under its name; /side forks the thread (ephemeral),
// injects its developer message, which the model then reads, and a failed
// /side leaves no thread behind; /delete removes the thread from every
// list, with its store blobs.
func TestAppServerSideConversationsAndDelete(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "side question", Steps: []fakemodel.Step{{Text: "side answer"}}},
		{Match: "main prompt", Steps: []fakemodel.Step{{Shell: "echo main-output"}, {Text: "main answer"}}},
	}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.HandshakeExperimental()

	res, _ := a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never"})
	id := res["thread"].(map[string]any)["id"].(string)
	if m := res["thread"].(map[string]any)["model"]; m != "fake-model" {
		t.Fatalf("thread/start's thread model %v", m)
	}
	a.Call("thread/name/set", map[string]any{"threadId": id, "name": "named main"})
	if s := listed(e.threadsList(t), id); s == nil || s["status"] != "idle" || s["title"] != "named main" {
		t.Fatalf("threads list shows the new thread as %v", s)
	}
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "main prompt"}}})
	a.Until("turn/completed", 90*time.Second)

	// /side: fork, inject, turn.
	fork, _ := a.Call("thread/fork", map[string]any{"threadId": id, "ephemeral": true})
	side := fork["thread"].(map[string]any)["id"].(string)
	devMsg := map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "<side_conversation>SIDE-MARKER-7</side_conversation>"}}}
	if r, _ := a.Call("thread/inject_items", map[string]any{"threadId": side, "items": []any{devMsg}}); len(r) != 0 {
		t.Fatalf("thread/inject_items: %v", r)
	}
	a.Call("turn/start", map[string]any{"threadId": side, "input": []any{map[string]any{"type": "text", "text": "side question"}}})
	a.Until("turn/completed", 90*time.Second)
	if reqs := e.Model.Server.RequestsContaining("side question"); len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "SIDE-MARKER-7") ||
		!strings.Contains(string(reqs[0].Body), "main-output") {
		t.Fatalf("the side turn's request lacks the injected message or the main history (%d requests)", len(reqs))
	}

	// A failed /side.
	bad, _ := a.Call("thread/fork", map[string]any{"threadId": id, "ephemeral": true})
	badID := bad["thread"].(map[string]any)["id"].(string)
	if e := a.CallErr("thread/inject_items", map[string]any{"threadId": badID, "items": []any{map[string]any{"type": "function_call"}}}); !strings.Contains(e["message"].(string), "items[0]") {
		t.Fatalf("a bad item: %v", e)
	}
	e2etest.WaitUntil(t, func() bool { return listed(e.threadsList(t), badID) == nil }, 30*time.Second,
		"the failed side conversation's fork to be gone", func() string {
			b, _ := json.Marshal(e.threadsList(t))
			return string(b) + "\napp-server stderr:\n" + a.Stderr.String()
		})
	if r, _ := a.Call("thread/list", map[string]any{}); strings.Contains(mustJSON(r), badID) {
		t.Fatalf("thread/list still shows the failed fork: %v", r)
	}

	// /delete.
	store := filepath.Join(e.Home, "store")
	before := storeBlobs(t, store)
	r, notes := a.Call("thread/delete", map[string]any{"threadId": id})
	if len(r) != 0 {
		t.Fatalf("thread/delete: %v", r)
	}
	if n := a.Until("thread/deleted", 60*time.Second); e2etest.NoteParams(e2etest.Last(n))["threadId"] != id {
		t.Fatalf("thread/deleted: %v (before the response: %v)", n, notes)
	}
	e2etest.WaitUntil(t, func() bool { return listed(e.threadsList(t), id) == nil }, 30*time.Second,
		"the deleted thread to leave the list", func() string { b, _ := json.Marshal(e.threadsList(t)); return string(b) })
	if after := storeBlobs(t, store); after >= before {
		t.Fatalf("store blobs: %d before the delete, %d after", before, after)
	}
	if e := a.CallErr("thread/read", map[string]any{"threadId": id}); !strings.Contains(e["message"].(string), "not found") {
		t.Fatalf("thread/read of the deleted thread: %v", e)
	}
	if e := a.CallErr("thread/delete", map[string]any{"threadId": id}); !strings.Contains(e["message"].(string), "no rollout found") {
		t.Fatalf("deleting it again: %v", e)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
