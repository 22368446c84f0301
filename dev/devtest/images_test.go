package devtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/proto"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// testPNG writes a noisy PNG (so its base64 text is found nowhere by
// chance) and returns its bytes.
func testPNG(t *testing.T, path string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	r := rand.New(rand.NewSource(7))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Intn(256))
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// historyHolds reports whether any event of any run of a workflow holds
// needle in its encoded form.
func historyHolds(t *testing.T, w *World, workflowID string, needle []byte) bool {
	t.Helper()
	it := w.Client.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, needle) {
			return true
		}
	}
	return false
}

// An attached picture reaches the model in each wire's own form (a framed
// Responses input_image, a Chat image_url part, a Messages image block),
// at every step of the turn, while the thread's and the turn's histories
// hold only a reference to it.
func TestImagesReachTheModelOnEveryWire(t *testing.T) {
	cases := []struct {
		wire, harness, model string
		want                 func(b64 string) []string
	}{
		{activities.WireResponses, "codex", "gpt-5.1", func(b64 string) []string {
			return []string{`{"text":"\u003cimage name=[Image #1] path=\"` + "PATH" + `\"\u003e","type":"input_text"}`,
				`{"detail":"high","image_url":"data:image/png;base64,` + b64 + `","type":"input_image"}`, `{"text":"\u003c/image\u003e","type":"input_text"}`,
				`{"text":"what is in the picture?","type":"input_text"}`}
		}},
		{activities.WireChat, "kimi-cli", "kimi-latest", func(b64 string) []string {
			return []string{`{"image_url":{"url":"data:image/png;base64,` + b64 + `"},"type":"image_url"}`, `{"text":"what is in the picture?","type":"text"}`}
		}},
		{activities.WireMessages, "claude-code", "claude-sonnet-4-5", func(b64 string) []string {
			return []string{`"source":{"data":"` + b64 + `","media_type":"image/png","type":"base64"}`, `"type":"image"`}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.wire, func(t *testing.T) {
			shell := map[string]string{activities.WireResponses: "shell", activities.WireChat: "Shell", activities.WireMessages: "Bash"}[tc.wire]
			args := map[string]any{"command": "echo looked"}
			if tc.wire == activities.WireResponses {
				args = map[string]any{"command": []string{"echo", "looked"}}
			}
			w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
				{ToolCalls: []fakemodel.ToolCall{toolCall(shell, args)}},
				{Text: "a noisy square"},
			}}}})
			w.StartWorker(WorkerOptions{Name: "w"})
			cfg := w.Config("")
			cfg.Harness, cfg.Model, cfg.Provider.WireAPI = tc.harness, tc.model, tc.wire
			if tc.wire == activities.WireMessages {
				cfg.Provider.BaseURL = w.Model.BaseURL()
			}
			path := filepath.Join(t.TempDir(), "noise.png")
			data := testPNG(t, path)
			b64 := base64.StdEncoding.EncodeToString(data)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			id := "images-" + tc.wire + "-" + time.Now().Format("150405.000000")
			resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
				workflows.StartTurnRequest{Prompt: "what is in the picture?", Images: []workflows.ImageSource{{Path: path}}})
			if err != nil {
				t.Fatal(err)
			}
			res := w.WaitTurn(ctx, id, resp.TurnID)
			if res.Status != workflows.StatusCompleted || res.FinalMessage != "a noisy square" {
				t.Fatalf("turn %s: %s %q", res.Status, res.Error, res.FinalMessage)
			}
			reqs := w.Model.Server.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			for i, r := range reqs {
				body := canonicalJSON(t, r.Body)
				for _, want := range tc.want(b64) {
					want = strings.ReplaceAll(want, "PATH", path)
					if !strings.Contains(body, want) {
						t.Fatalf("request %d lacks %s", i+1, want)
					}
				}
				if strings.Count(body, b64) != 1 {
					t.Fatalf("request %d carries the image %d times", i+1, strings.Count(body, b64))
				}
			}
			for _, wf := range []string{id, resp.TurnID} {
				if historyHolds(t, w, wf, []byte(b64[:200])) || historyHolds(t, w, wf, data[:200]) {
					t.Fatalf("the history of %s holds the image's bytes", wf)
				}
			}
		})
	}
}

// Pictures that cannot be sent are refused before any model call, and the
// thread stays usable.
func TestImagesRefusedBeforeAnyCall(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "fine"}}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	dir := t.TempDir()
	notImage := filepath.Join(dir, "notes.png")
	if err := os.WriteFile(notImage, []byte("just text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")
	cfg.Model = "gpt-5.1"
	id, res := w.RunTurn(ctx, cfg, "hello")
	if res.Status != workflows.StatusCompleted {
		t.Fatal(res.Error)
	}
	before := len(w.Model.Server.Requests())
	for _, c := range []struct {
		img  workflows.ImageSource
		want string
	}{
		{workflows.ImageSource{Path: filepath.Join(dir, "missing.png")}, "no such file"},
		{workflows.ImageSource{Path: notImage}, "not a PNG, JPEG, GIF or WebP image"},
	} {
		resp, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "look", Images: []workflows.ImageSource{c.img}})
		if err != nil {
			t.Fatal(err)
		}
		r := w.WaitTurn(ctx, id, resp.TurnID)
		if r.Status != workflows.StatusFailed || !strings.Contains(r.Error, c.want) {
			t.Fatalf("turn %s: %q, want failed with %q", r.Status, r.Error, c.want)
		}
	}
	_, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "look", Model: "gpt-3.5-turbo",
		Images: []workflows.ImageSource{{URL: "https://example.invalid/a.png"}}})
	if err == nil || !strings.Contains(err.Error(), "reads text only") {
		t.Fatalf("a text-only model took an image: %v", err)
	}
	if n := len(w.Model.Server.Requests()); n != before {
		t.Fatalf("%d model calls for refused images", n-before)
	}
	resp, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "still there?"})
	if err != nil {
		t.Fatal(err)
	}
	if r := w.WaitTurn(ctx, id, resp.TurnID); r.Status != workflows.StatusCompleted {
		t.Fatalf("the thread after refused images: %s %s", r.Status, r.Error)
	}
}

// canonicalJSON is body as encoding/json writes it (keys sorted, HTML
// characters escaped), whatever encoder the SDK used.
func canonicalJSON(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// view_image (the codex harness) shows the model a picture of the
// workspace in the function call's output, as Codex does; a missing file
// is an error the model reads, and the turn goes on.
func TestViewImage(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{ToolCalls: []fakemodel.ToolCall{toolCall("view_image", map[string]string{"path": "shot.png"})}},
		{ToolCalls: []fakemodel.ToolCall{toolCall("view_image", map[string]string{"path": "gone.png"})}},
		{Text: "seen"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "w"})
	cfg := w.Config("")
	cfg.Model = "gpt-5.1"
	cfg.Cwd = t.TempDir()
	data := testPNG(t, filepath.Join(cfg.Cwd, "shot.png"))
	b64 := base64.StdEncoding.EncodeToString(data)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, res := w.RunTurn(ctx, cfg, "look at shot.png")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "seen" {
		t.Fatalf("turn %s: %s", res.Status, res.Error)
	}
	reqs := w.Model.Server.Requests()
	body := canonicalJSON(t, reqs[len(reqs)-1].Body)
	if !strings.Contains(body, `"output":[{"detail":"high","image_url":"data:image/png;base64,`+b64+`","type":"input_image"}],"type":"function_call_output"`) {
		t.Fatalf("the picture is not in the function call's output:\n%.2000s", body)
	}
	if !strings.Contains(body, `gone.png: no such file or directory`) {
		t.Fatalf("the missing picture's error is not shown:\n%.3000s", body)
	}
	if historyHolds(t, w, res.TurnID, []byte(b64[:200])) {
		t.Fatal("the turn's history holds the picture")
	}
}
