package exec

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// deadProvider are -c flags selecting a provider nothing answers for,
// with request_max_retries = 2: three attempts, pauses of 1 s and 2 s.
func deadProvider(t *testing.T) []string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return []string{"-c", "model_provider=dead",
		"-c", fmt.Sprintf("model_providers.dead={name=\"dead\", base_url=\"http://%s/v1\", wire_api=\"responses\", request_max_retries=2}", addr)}
}

// With a provider that refuses connections, exec shows each retry while
// it happens (a line on stderr; a top-level error event with --json),
// then fails the turn and exits 1; the app-server sends Codex's error
// notification with willRetry true for each retry, then the turn's
// error with willRetry false and a failed turn.
func TestRetriesShowInEveryFrontEnd(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "never"}}}}})
	dev := e.StartDev()
	defer dev.Kill()
	dead := deadProvider(t)
	const refused = "cannot reach provider dead: connection refused"

	t.Run("exec", func(t *testing.T) {
		p := e.Exec(append(dead, "hello")...)
		// The first retry line shows before the turn ends.
		p.WaitFor(func() bool {
			return strings.Contains(p.Stderr.String(), "retrying model call (attempt 2/3 in 1s): "+refused)
		},
			10*time.Second, "the first retry line")
		if code := p.Wait(60 * time.Second); code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", code, p.Stderr)
		}
		err := p.Stderr.String()
		for _, want := range []string{"retrying model call (attempt 3/3 in 2s): " + refused, refused + " (gave up after 3 attempts)"} {
			if !strings.Contains(err, want) {
				t.Fatalf("stderr lacks %q:\n%s", want, err)
			}
		}
	})

	t.Run("exec --json", func(t *testing.T) {
		p := e.Exec(append(dead, "--json", "hello")...)
		if code := p.Wait(60 * time.Second); code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", code, p.Stderr)
		}
		var errs []string
		var failed map[string]any
		for _, m := range e2etest.JSONLines(t, p.Stdout.String()) {
			switch m["type"] {
			case "error":
				errs = append(errs, m["message"].(string))
			case "turn.failed":
				failed = m
			}
		}
		want := []string{"retrying model call (attempt 2/3 in 1s): " + refused, "retrying model call (attempt 3/3 in 2s): " + refused}
		if strings.Join(errs, "\n") != strings.Join(want, "\n") {
			t.Fatalf("error events %q, want %q", errs, want)
		}
		if failed == nil || !strings.Contains(fmt.Sprint(failed["error"]), "gave up after 3 attempts") {
			t.Fatalf("turn.failed %v", failed)
		}
	})

	t.Run("app-server", func(t *testing.T) {
		a := e.AppServer(e2etest.LoadSchema(t), dead...) // every line is checked against the schema
		a.Handshake()
		res, _ := a.Call("thread/start", map[string]any{"approvalPolicy": "never", "cwd": e.Work})
		id := res["thread"].(map[string]any)["id"].(string)
		a.Until("thread/started", 30*time.Second)
		a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "hello"}}})
		notes := a.Until("turn/completed", 60*time.Second)
		var retries []bool
		var messages []string
		for _, n := range notes {
			if n["method"] != "error" {
				continue
			}
			p := e2etest.NoteParams(n)
			retries = append(retries, p["willRetry"].(bool))
			messages = append(messages, p["error"].(map[string]any)["message"].(string))
		}
		if fmt.Sprint(retries) != "[true true false]" || !strings.HasPrefix(messages[0], "retrying model call (attempt 2/3 in 1s)") {
			b, _ := json.Marshal(notes)
			t.Fatalf("error notifications %v %q\n%s", retries, messages, b)
		}
		turn := e2etest.NoteParams(notes[len(notes)-1])["turn"].(map[string]any)
		if turn["status"] != "failed" {
			t.Fatalf("turn %v", turn)
		}
	})
}
