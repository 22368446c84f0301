package codexclients

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/codexschema"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The session of each of Codex's own clients, recorded by the server's
// --transcript: start-up, a turn that runs a command, and a resume. Each
// is kept as a golden list of the methods each side used
// (testdata/transcripts, rewritten with -update), so a client release
// that calls something new shows up as a diff; no request gets an
// unknown-method error, and every message the server sent validates
// against both reference schemas.
func TestCodexClientSessionTranscripts(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "tui first", Steps: []fakemodel.Step{{Shell: "echo tui-transcript-output"}, {Text: "tui first done"}}},
		{Match: "tui second", Steps: []fakemodel.Step{{Text: "tui second done"}}},
		{Match: "exec first", Steps: []fakemodel.Step{{Shell: "echo exec-transcript-output"}, {Text: "exec first done"}}},
		{Match: "exec second", Steps: []fakemodel.Step{{Text: "exec second done"}}},
	}})
	dev := e.startDevNoListen()
	defer dev.Kill()
	v := e2etest.LoadSchema(t)

	t.Run("tui", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "tui.jsonl")
		app, url := e.listenApp("ws://127.0.0.1:0", "--transcript", path)
		defer app.Kill()
		tui := startTUI(t, e, url)
		tui.waitFor("the TUI's prompt", func(s string) bool { return strings.Contains(s, "fake-model") && strings.Contains(s, "›") })
		tui.keys("-l", "the tui first prompt")
		tui.waitFor("the prompt to be typed", func(s string) bool { return strings.Contains(s, "the tui first prompt") })
		tui.keys("Enter")
		tui.waitFor("the first turn", func(s string) bool { return strings.Contains(s, "tui first done") })
		// The TUI's title side thread is ephemeral: archived once the TUI
		// lets it go, it leaves the list; the TUI's own thread stays.
		reader := e.AppServer(v)
		reader.Handshake()
		var listed []any
		e2etest.WaitUntil(t, func() bool {
			list, _ := reader.Call("thread/list", map[string]any{})
			listed = list["data"].([]any)
			return len(listed) == 1
		}, 30*time.Second, "thread/list to hold the TUI's thread alone", func() string { return fmt.Sprint(listed) })
		reader.Kill()
		tui.close()
		id := turnThread(t, path)
		resumed := startTUI(t, e, url, "resume", id)
		resumed.waitFor("the resumed thread", func(s string) bool {
			return strings.Contains(s, "tui first done") && strings.Contains(s, "›")
		})
		resumed.keys("-l", "the tui second prompt")
		resumed.waitFor("the second prompt to be typed", func(s string) bool { return strings.Contains(s, "the tui second prompt") })
		resumed.keys("Enter")
		resumed.waitFor("the second turn", func(s string) bool { return strings.Contains(s, "tui second done") })
		resumed.close()
		compareGolden(t, "tui", checkTranscript(t, path, v))
	})

	t.Run("exec", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "exec.jsonl")
		app, url := e.listenApp("ws://127.0.0.1:0", "--transcript", path)
		defer app.Kill()
		first := e.codexRemote(url, nil, "the exec first prompt")
		first.MustSucceed("codex exec --remote")
		m := codexThreadLine.FindStringSubmatch(first.Stderr.String())
		if m == nil {
			t.Fatalf("no thread id in codex's output:\n%s", first.Stderr)
		}
		second := e.codexRemote(url, nil, "resume", m[1], "the exec second prompt")
		second.MustSucceed("codex exec --remote resume")
		if !strings.Contains(second.Stdout.String(), "exec second done") {
			t.Fatalf("codex exec resume printed %q", second.Stdout)
		}
		compareGolden(t, "exec", checkTranscript(t, path, v))
	})
}

// transcriptMessage is one line of a --transcript file.
type transcriptMessage struct {
	Conn int64           `json:"conn"`
	Dir  string          `json:"dir"`
	Msg  json.RawMessage `json:"msg"`
}

// readTranscript reads a --transcript file.
func readTranscript(t *testing.T, path string) []transcriptMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []transcriptMessage
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m transcriptMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("transcript line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// turnThread is the thread of the first turn/start in a transcript.
func turnThread(t *testing.T, path string) string {
	t.Helper()
	for _, m := range readTranscript(t, path) {
		var req struct {
			Method string `json:"method"`
			Params struct {
				ThreadID string `json:"threadId"`
			} `json:"params"`
		}
		if m.Dir == "in" && json.Unmarshal(m.Msg, &req) == nil && req.Method == "turn/start" {
			return req.Params.ThreadID
		}
	}
	t.Fatalf("no turn/start in the transcript")
	return ""
}

// normalID is a JSON-RPC id as a map key, whatever its spacing.
func normalID(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// checkTranscript validates what the server sent and sums the session
// up: one line per kind of message and method, sorted.
func checkTranscript(t *testing.T, path string, v *codexschema.Validator) []string {
	t.Helper()
	msgs := readTranscript(t, path)
	if len(msgs) == 0 {
		t.Fatal("the transcript is empty")
	}
	clientReqs := map[string]string{} // conn/id -> method
	serverReqs := map[string]string{}
	seen := map[string]bool{}
	bad := map[string]bool{}
	for _, m := range msgs {
		var rpc struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(m.Msg, &rpc); err != nil {
			t.Fatalf("transcript message %s: %v", m.Msg, err)
		}
		key := fmt.Sprintf("%d/%s", m.Conn, normalID(rpc.ID))
		hasID := normalID(rpc.ID) != ""
		var line string
		switch {
		case m.Dir == "in" && rpc.Method != "" && hasID:
			clientReqs[key] = rpc.Method
			line = "client request " + rpc.Method
		case m.Dir == "in" && rpc.Method != "":
			line = "client notification " + rpc.Method
		case m.Dir == "in":
			line = "client answers " + serverReqs[key]
		case rpc.Method != "" && hasID:
			serverReqs[key] = rpc.Method
			line = "server request " + rpc.Method
		case rpc.Method != "":
			line = "server notification " + rpc.Method
		case rpc.Error != nil:
			line = fmt.Sprintf("server error %s %d", clientReqs[key], rpc.Error.Code)
			if rpc.Error.Code == -32601 || strings.Contains(rpc.Error.Message, "unknown method") {
				t.Errorf("%s got %d %q", clientReqs[key], rpc.Error.Code, rpc.Error.Message)
			}
		default:
			line = "server result " + clientReqs[key]
		}
		seen[line] = true
		if m.Dir == "out" {
			err := v.Line(m.Msg, func(string) string { return clientReqs[key] })
			if err != nil && !bad[line] {
				bad[line] = true
				t.Errorf("%s does not validate: %v\n%s", line, err, m.Msg)
			}
		}
	}
	lines := make([]string, 0, len(seen))
	for l := range seen {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return lines
}

// compareGolden compares a session summary with testdata/transcripts/NAME.golden.
func compareGolden(t *testing.T, name string, lines []string) {
	t.Helper()
	path := filepath.Join("testdata", "transcripts", name+".golden")
	got := strings.Join(lines, "\n") + "\n"
	if *e2etest.Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to record it)", err)
	}
	if got != string(want) {
		t.Errorf("the %s session differs from %s (-update rewrites it)\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}
