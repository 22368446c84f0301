package appserver

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// command/exec in its streaming form, checked against the reference
// schema: a program in a terminal of the size asked for streams its
// output as command/exec/outputDelta, is resized, typed into with
// command/exec/write, and ended with command/exec/terminate; the
// command/exec request is answered when it exits. A write to a process
// that does not exist is an error.
func TestAppServerCommandExecStreams(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "unused"}}}}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.Handshake()

	execID := a.Request("command/exec", map[string]any{"processId": "p1", "tty": true, "size": map[string]any{"rows": 30, "cols": 100},
		"command": []string{"bash", "-c", `stty size; echo ready; read l; echo "got:$l"; stty size; sleep 60`}})
	var out strings.Builder
	// take adds a notification's streamed output to out.
	take := func(m map[string]any) {
		t.Helper()
		if m["method"] != "command/exec/outputDelta" {
			return
		}
		p := e2etest.NoteParams(m)
		if p["processId"] != "p1" || p["stream"] != "stdout" {
			t.Fatalf("delta %v", p)
		}
		b, err := base64.StdEncoding.DecodeString(p["deltaBase64"].(string))
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
	}
	// call is a.call whose notifications on the way (output the command
	// wrote before the response came) still count.
	call := func(method string, params any) map[string]any {
		t.Helper()
		res, notes := a.Call(method, params)
		for _, m := range notes {
			take(m)
		}
		return res
	}
	readUntil := func(want string) {
		t.Helper()
		for !strings.Contains(out.String(), want) {
			m := a.Read(30 * time.Second)
			if m["method"] == nil {
				t.Fatalf("a response before %q was streamed: %v (output so far %q)", want, m, out.String())
			}
			take(m)
		}
	}
	readUntil("ready")
	if !strings.Contains(out.String(), "30 100") {
		t.Errorf("the terminal is not 30x100: %q", out.String())
	}
	if res := call("command/exec/resize", map[string]any{"processId": "p1", "size": map[string]any{"rows": 40, "cols": 120}}); len(res) != 0 {
		t.Errorf("resize result %v", res)
	}
	call("command/exec/write", map[string]any{"processId": "p1", "deltaBase64": base64.StdEncoding.EncodeToString([]byte("hello\n"))})
	readUntil("got:hello")
	readUntil("40 120")
	if e := a.CallErr("command/exec/write", map[string]any{"processId": "nope", "deltaBase64": "eA=="}); !strings.Contains(fmt.Sprint(e["message"]), "nope") {
		t.Errorf("write to an unknown process: %v", e)
	}
	termID := a.Request("command/exec/terminate", map[string]any{"processId": "p1"})
	var exitCode any
	for seen := 0; seen < 2; {
		m := a.Read(30 * time.Second)
		if m["method"] != nil {
			continue
		}
		if m["error"] != nil {
			t.Fatalf("error %v", m)
		}
		switch fmt.Sprint(m["id"]) {
		case termID:
			seen++
		case execID:
			seen++
			exitCode = m["result"].(map[string]any)["exitCode"]
		}
	}
	if fmt.Sprint(exitCode) != "137" {
		t.Errorf("terminated process exit code %v, want 137", exitCode)
	}
}
