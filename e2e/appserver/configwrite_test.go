package appserver

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The TUI's /model "save as default" (config/batchWrite of model and
// model_reasoning_effort) against `interpreter dev`: config.toml is
// rewritten in place, its comments kept, and the next thread, config/read
// and model/list have the new model, without a restart.
func TestSavedDefaultModelAppliesToNextThread(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Match: "which model", Steps: []fakemodel.Step{{Text: "this one"}}}}})
	file := filepath.Join(e.Home, "config.toml")
	text := fmt.Sprintf("# written by hand\nmodel = \"fake-model\" # the first one\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = %q\nwire_api = \"responses\"\n", e.Model.URL())
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	dev := e.Start("dev", "--headless", "--port", fmt.Sprint(e.Port), "--listen", "ws://127.0.0.1:0", "-c", fmt.Sprintf("temporal.address=127.0.0.1:%d", e.Port))
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	m := regexp.MustCompile(`App server: +(ws://\S+)`).FindStringSubmatch(dev.Stdout.String())
	if m == nil {
		t.Fatalf("dev did not print the app-server's address:\n%s", dev.Stdout)
	}
	p := dialPeer(t, m[1], e2etest.LoadSchema(t))

	res := p.call("config/batchWrite", map[string]any{"edits": []any{
		map[string]any{"keyPath": "model", "value": "fake-next", "mergeStrategy": "replace"},
		map[string]any{"keyPath": "model_reasoning_effort", "value": "low", "mergeStrategy": "replace"},
	}, "filePath": nil, "expectedVersion": nil, "reloadUserConfig": true})
	b, _ := os.ReadFile(file)
	want := strings.Replace(strings.Replace(text, `"fake-model"`, `"fake-next"`, 1), "model_provider = \"fake\"\n",
		"model_provider = \"fake\"\nmodel_reasoning_effort = \"low\"\n", 1)
	if string(b) != want || res["status"] != "ok" || !strings.HasPrefix(fmt.Sprint(res["version"]), "sha256:") {
		t.Fatalf("config/batchWrite answered %v and wrote:\n%s", res, b)
	}
	if c := p.call("config/read", map[string]any{"includeLayers": true, "cwd": "."})["config"].(map[string]any); c["model"] != "fake-next" {
		t.Fatalf("config/read: %v", c)
	}
	if models := p.call("model/list", map[string]any{})["data"].([]any); models[0].(map[string]any)["id"] != "fake-next" {
		t.Fatalf("model/list: %v", models)
	}
	started := p.call("thread/start", map[string]any{"cwd": e.Work, "approvalPolicy": "never"})
	if started["model"] != "fake-next" || started["reasoningEffort"] != "low" {
		t.Fatalf("the next thread: model %v, effort %v", started["model"], started["reasoningEffort"])
	}
	id := started["thread"].(map[string]any)["id"].(string)
	p.call("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "which model"}}})
	if it := p.untilItem("agentMessage"); it["text"] != "this one" {
		t.Fatalf("the turn's answer: %v", it)
	}
	recs := e.Model.Server.RequestsContaining("which model")
	if len(recs) == 0 || !strings.Contains(string(recs[0].Body), `"model":"fake-next"`) {
		t.Fatalf("the model was asked with: %v", recs)
	}

	// A value the server would not load is refused, and nothing changes.
	p.n++
	p.methods[fmt.Sprint(p.n)] = "config/value/write"
	p.send(map[string]any{"id": p.n, "method": "config/value/write", "params": map[string]any{"keyPath": "sandbox_mode", "value": "open", "mergeStrategy": "replace"}})
	for {
		r := p.read(30 * time.Second)
		if _, isNote := r["method"]; isNote {
			continue
		}
		data, _ := r["error"].(map[string]any)["data"].(map[string]any)
		if data["config_write_error_code"] != "configValidationError" {
			t.Fatalf("a bad sandbox_mode: %v", r)
		}
		break
	}
	if b2, _ := os.ReadFile(file); string(b2) != want {
		t.Fatalf("a refused write changed the file:\n%s", b2)
	}
}
