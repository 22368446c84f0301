package appserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// noisePNG writes a PNG whose base64 text occurs nowhere by chance.
func noisePNG(t *testing.T, path string, seed int64) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	r := rand.New(rand.NewSource(seed))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Intn(256))
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// canonical is a request body as encoding/json writes it, whatever
// encoder the SDK used.
func canonical(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// What a real model needs, through the built binary on each wire:
// `exec --image` reaches the model in the wire's own form; over Responses,
// a turn in repo/sub of a git repository also shows both AGENTS.md files
// in Codex's order, asks a reasoning model for its effort and encrypted
// reasoning, and gives that reasoning back at the next step, against a
// server whose response.completed carries no output.
func TestExecRealModelNeedsPerWire(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{ResponsesItemsOnly: true, Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Reasoning: "check the tree first", Shell: "echo looked"},
		{Text: "the picture is noise"},
	}}}})
	dev := e.StartDev()
	defer dev.Kill()
	repo := filepath.Join(e.Work, "repo")
	sub := filepath.Join(repo, "sub")
	for p, text := range map[string]string{
		filepath.Join(repo, ".git", "HEAD"): "ref: refs/heads/main\n",
		filepath.Join(repo, "AGENTS.md"):    "ROOT-RULES\n",
		filepath.Join(sub, "AGENTS.md"):     "SUB-RULES\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		wire, model string
		extra       []string
		want        func(b64 string) []string
	}{
		{"responses", "gpt-5.1", []string{"-c", "model_reasoning_effort=high", "-C", sub}, func(b64 string) []string {
			return []string{`"image_url":"data:image/png;base64,` + b64 + `"`, `\u003cimage name=[Image #1] path=`,
				`# AGENTS.md instructions for ` + sub + `\n\n\u003cINSTRUCTIONS\u003e\nROOT-RULES\n\n\nSUB-RULES\n\n\u003c/INSTRUCTIONS\u003e`,
				`"include":["reasoning.encrypted_content"]`, `"reasoning":{"effort":"high","summary":"auto"}`}
		}},
		{"chat", "kimi-latest", nil, func(b64 string) []string {
			return []string{`{"image_url":{"url":"data:image/png;base64,` + b64 + `"},"type":"image_url"}`}
		}},
		{"messages", "claude-sonnet-4-5", []string{"-c", fmt.Sprintf("model_providers.fake.base_url=%q", e.Model.BaseURL())}, func(b64 string) []string {
			return []string{`"source":{"data":"` + b64 + `","media_type":"image/png","type":"base64"}`}
		}},
	}
	for i, c := range cases {
		t.Run(c.wire, func(t *testing.T) {
			e.Model.Server.Reset()
			pic := filepath.Join(e.Work, fmt.Sprintf("pic-%s.png", c.wire))
			b64 := noisePNG(t, pic, int64(i))
			args := append([]string{"-c", fmt.Sprintf("model_providers.fake.wire_api=%q", c.wire), "-m", c.model,
				"--skip-git-repo-check", "--image", pic}, c.extra...)
			p := e.Exec(append(args, "what is in the picture?")...)
			if code := p.Wait(2 * time.Minute); code != 0 {
				t.Fatalf("exec exit %d\nstdout:\n%s\nstderr:\n%s", code, p.Stdout, p.Stderr)
			}
			if !strings.Contains(p.Stdout.String(), "the picture is noise") {
				t.Fatalf("stdout:\n%s", p.Stdout)
			}
			reqs := e.Model.Server.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests", len(reqs))
			}
			for n, r := range reqs {
				body := canonical(t, r.Body)
				for _, w := range c.want(b64) {
					if !strings.Contains(body, w) {
						t.Fatalf("request %d lacks %s\n%.3000s", n+1, w, body)
					}
				}
			}
			if c.wire == "responses" {
				second := canonical(t, reqs[1].Body)
				if !strings.Contains(second, `"encrypted_content":"fakemodel-encrypted-rs_t0_s0"`) {
					t.Fatalf("the second request does not give back the first step's reasoning:\n%.3000s", second)
				}
			}
		})
	}
	// Bad pictures are refused before anything is sent.
	notPic := filepath.Join(e.Work, "notes.png")
	if err := os.WriteFile(notPic, []byte("text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Model.Server.Reset()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--image", filepath.Join(e.Work, "missing.png")}, "no such file"},
		{[]string{"--image", notPic}, "not a PNG, JPEG, GIF or WebP image"},
		{[]string{"--image", filepath.Join(e.Work, "pic-chat.png"), "-m", "gpt-3.5-turbo"}, "reads text only"},
		{[]string{"-c", "model_reasoning_effort=extreme"}, "model_reasoning_effort"},
		{[]string{"-c", "model_reasoning_effort=high", "-m", "gpt-4o"}, "does not reason"},
	} {
		p := e.Exec(append(c.args, "look")...)
		if code := p.Wait(time.Minute); code != 2 || !strings.Contains(p.Stderr.String(), c.want) {
			t.Fatalf("exec %v: exit %d, stderr:\n%s", c.args, code, p.Stderr)
		}
	}
	if n := len(e.Model.Server.Requests()); n != 0 {
		t.Fatalf("%d model requests for refused input", n)
	}
}

// The app-server's localImage input reaches the model, and thread/start
// names the AGENTS.md files a turn will read.
func TestAppServerLocalImageAndInstructionSources(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "I see it"}}}}})
	dev := e.StartDev()
	defer dev.Kill()
	if err := os.MkdirAll(filepath.Join(e.Work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Work, "AGENTS.md"), []byte("RULES\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b64 := noisePNG(t, filepath.Join(e.Work, "shot.png"), 42)
	a := e.AppServer(e2etest.LoadSchema(t))
	a.Handshake()
	res, _ := a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never"})
	if src, _ := res["instructionSources"].([]any); len(src) != 1 || src[0] != filepath.Join(e.Work, "AGENTS.md") {
		t.Fatalf("instructionSources %v", res["instructionSources"])
	}
	id := res["thread"].(map[string]any)["id"].(string)
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{
		map[string]any{"type": "localImage", "path": "shot.png"},
		map[string]any{"type": "text", "text": "what is this?"},
	}})
	notes := a.Until("turn/completed", 90*time.Second)
	if st := e2etest.NoteParams(notes[len(notes)-1])["turn"].(map[string]any)["status"]; st != "completed" {
		t.Fatalf("turn %v", st)
	}
	reqs := e.Model.Server.Requests()
	if len(reqs) != 1 || !strings.Contains(canonical(t, reqs[0].Body), `"image_url":"data:image/png;base64,`+b64+`"`) {
		t.Fatalf("the picture did not reach the model (%d requests)", len(reqs))
	}
}

// A reasoning summary streams to app-server clients while the model
// writes it: item/reasoning/summaryPartAdded, then summaryTextDelta
// notifications between the reasoning item's item/started and
// item/completed, adding up to its text; every message within the
// reference schema.
func TestAppServerStreamsReasoning(t *testing.T) {
	const thought = "First I will look at the failing test, then at the code it covers, and only then change anything."
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Reasoning: thought, Text: "done thinking", ChunkDelayMs: 120},
	}}}})
	dev := e.StartDev()
	defer dev.Kill()
	a := e.AppServer(e2etest.LoadSchema(t))
	a.Handshake()
	res, _ := a.Call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never"})
	id := res["thread"].(map[string]any)["id"].(string)
	a.Call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "think first"}}})
	notes := a.Until("turn/completed", 90*time.Second)
	var itemID, streamed string
	started, parts, completed := -1, 0, -1
	for i, n := range notes {
		p, _ := n["params"].(map[string]any)
		switch n["method"] {
		case "item/started":
			if it := p["item"].(map[string]any); it["type"] == "reasoning" {
				started, itemID = i, it["id"].(string)
			}
		case "item/reasoning/summaryPartAdded":
			if p["itemId"] == itemID {
				parts++
			}
		case "item/reasoning/summaryTextDelta":
			if p["itemId"] != itemID || started < 0 || completed >= 0 {
				t.Fatalf("a reasoning delta outside its item: %v", n)
			}
			streamed += p["delta"].(string)
		case "item/completed":
			if it := p["item"].(map[string]any); it["type"] == "reasoning" {
				if it["id"] != itemID {
					t.Fatalf("the reasoning item completed under %v, streamed under %s", it["id"], itemID)
				}
				completed = i
				if s := it["summary"].([]any); len(s) != 1 || s[0] != thought {
					t.Fatalf("reasoning item %v", it)
				}
			}
		}
	}
	// Deltas come only from the stream (a reasoning item that did not
	// stream completes whole): their text adding up to the item's proves it
	// streamed.
	if started < 0 || completed < 0 || parts != 1 || streamed != thought {
		t.Fatalf("started %d completed %d parts %d streamed %q", started, completed, parts, streamed)
	}
}
