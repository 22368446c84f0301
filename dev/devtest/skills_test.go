package devtest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func errorItems(evs []workflows.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Item != nil && e.Item.Type == workflows.ItemError {
			out = append(out, e.Item.Message)
		}
	}
	return out
}

// Skills on the real server, one thread: a repository skill is listed in
// the system prompt the model receives and the model opens it with its
// shell; a skill with a bad openai.yaml is skipped with a warning naming
// the file, the entry and the field, and the turn goes on; disabling the
// skill in the settings removes it from the next turn of the same thread;
// two skills declaring one server differently fail that turn naming both,
// and once one is disabled the thread works again.
func TestSkillsOnTheRealServer(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "first", Steps: []fakemodel.Step{{Shell: "cat .agents/skills/deploy/SKILL.md"}, {Text: "deployed"}}},
		{Match: "second", Steps: []fakemodel.Step{{Text: "second done"}}},
		{Match: "fourth", Steps: []fakemodel.Step{{Text: "fourth done"}}},
	}})
	if err := os.MkdirAll(filepath.Join(w.Dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	deploy := filepath.Join(w.Dir, ".agents", "skills", "deploy", skills.FileName)
	writeFile(t, deploy, "---\nname: deploy\ndescription: Ship the service to staging.\n---\n1. Run make deploy. BODY-MARKER\n")
	writeFile(t, filepath.Join(w.Dir, ".agents", "skills", "deploy", "agents", "openai.yaml"),
		"dependencies:\n  tools:\n    - {type: mcp, value: cloud, transport: streamable_http, url: 'https://cloud.example/mcp', bearer_token_env_var: CLOUD_TOKEN}\n")
	broken := filepath.Join(w.Dir, ".agents", "skills", "broken", "agents", "openai.yaml")
	writeFile(t, filepath.Join(w.Dir, ".agents", "skills", "broken", skills.FileName), "---\nname: broken\ndescription: Has a bad openai.yaml.\n---\n")
	writeFile(t, broken, "dependencies:\n  tools:\n    - {type: mcp, value: local, transport: stdio, command: srv, url: 'https://x/mcp'}\n")
	userSkill := filepath.Join(w.Dir, "user-home", ".agents", "skills", "notes", skills.FileName)
	writeFile(t, userSkill, "---\nname: notes\ndescription: Keep release notes.\n---\n")

	t.Setenv("CLOUD_TOKEN", "tok-SECRET-value")
	var mu sync.Mutex
	settings := skills.Settings{}
	set := func(s skills.Settings) { mu.Lock(); settings = s; mu.Unlock() }
	w.StartWorker(WorkerOptions{Name: "w", SkillSettings: func() (skills.Settings, error) {
		mu.Lock()
		defer mu.Unlock()
		return settings, nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := w.Config("")

	entry := "(file: " + deploy + ")"

	// Turn 1: listed, opened, warning for the broken skill.
	id, res := w.RunTurn(ctx, cfg, "first task")
	if res.Status != workflows.StatusCompleted || res.FinalMessage != "deployed" {
		t.Fatalf("first turn: %+v", res)
	}
	first := w.Model.Server.RequestsContaining("first task")
	if len(first) != 2 {
		t.Fatalf("%d requests for the first turn", len(first))
	}
	body := string(first[0].Body)
	for _, want := range []string{"## Skills", "- deploy: Ship the service to staging. " + entry, "- notes: Keep release notes. (file: " + userSkill + ")", "- skill-creator: "} {
		if !strings.Contains(body, want) {
			t.Errorf("the system prompt lacks %q", want)
		}
	}
	if strings.Contains(body, "BODY-MARKER") {
		t.Error("the skill's body was sent before the model opened it")
	}
	if strings.Contains(body, "- broken:") {
		t.Error("the broken skill is listed")
	}
	if !strings.Contains(string(first[1].Body), "BODY-MARKER") {
		t.Error("the model's cat of SKILL.md did not return the body")
	}
	warnings := errorItems(turnEvents(t, w, res.TurnID))
	// The skill's server joins the turn's MCP servers: it is tried (and,
	// unreachable and optional, warns) with the turn going on.
	if len(warnings) != 2 || !strings.Contains(warnings[1], `mcp server "cloud" failed to start`) {
		t.Fatalf("warnings: %q", warnings)
	}
	for _, want := range []string{`skill "broken" skipped`, broken, `dependencies.tools[0] (value "local")`, `field "url"`} {
		if !strings.Contains(warnings[0], want) {
			t.Errorf("warning %q lacks %q", warnings[0], want)
		}
	}

	// The merged servers are in the turn's history with the token's
	// variable name; its value (in the worker's environment) is not.
	hist, err := turnHistoryJSON(ctx, w, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hist, `"bearer_token_env_var":"CLOUD_TOKEN"`) || !strings.Contains(hist, `"skills":["deploy"]`) {
		t.Error("the turn's history lacks the skill's server")
	}
	if strings.Contains(hist, "tok-SECRET-value") {
		t.Error("the token's value reached the history")
	}

	// Turn 2, same thread: the skill is disabled by path.
	set(skills.Settings{Rules: []skills.Rule{{Path: deploy, Enabled: false}}})
	resp, err := threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "second task"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted {
		t.Fatalf("second turn: %+v", res)
	}
	second := w.Model.Server.RequestsContaining("second task")
	if len(second) != 1 {
		t.Fatalf("%d requests for the second turn", len(second))
	}
	if body := string(second[0].Body); strings.Contains(body, entry) || !strings.Contains(body, "- notes: ") {
		t.Errorf("after disabling, the listing is wrong:\n%s", body)
	}

	// Turn 3: deploy back on, and a second skill that declares "cloud"
	// with another URL: the turn fails naming both skills.
	set(skills.Settings{})
	writeFile(t, filepath.Join(w.Dir, ".agents", "skills", "ops", skills.FileName), "---\nname: ops\ndescription: Operate the service.\n---\n")
	writeFile(t, filepath.Join(w.Dir, ".agents", "skills", "ops", "agents", "openai.yaml"),
		"dependencies:\n  tools:\n    - {type: mcp, value: cloud, transport: streamable_http, url: 'https://other.example/mcp'}\n")
	resp, err = threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "third task"})
	if err != nil {
		t.Fatal(err)
	}
	res = w.WaitTurn(ctx, id, resp.TurnID)
	if res.Status != workflows.StatusFailed {
		t.Fatalf("third turn: %+v", res)
	}
	for _, want := range []string{`"deploy"`, `"ops"`, `MCP server "cloud"`, "url"} {
		if !strings.Contains(res.Error, want) {
			t.Errorf("conflict error %q lacks %q", res.Error, want)
		}
	}
	if n := len(w.Model.Server.RequestsContaining("third task")); n != 0 {
		t.Errorf("the model was called %d times in the failed turn", n)
	}

	// Turn 4: ops disabled by name, the thread works again.
	set(skills.Settings{Rules: []skills.Rule{{Name: "ops", Enabled: false}}})
	resp, err = threads.Reply(ctx, w.Client, id, workflows.StartTurnRequest{Prompt: "fourth task"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, id, resp.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "fourth done" {
		t.Fatalf("fourth turn: %+v", res)
	}
	fourth := w.Model.Server.RequestsContaining("fourth task")
	if len(fourth) != 1 || !strings.Contains(string(fourth[0].Body), entry) || strings.Contains(string(fourth[0].Body), "- ops: ") {
		t.Errorf("fourth turn's listing is wrong")
	}
}

// BenchmarkOneStepTurnWithSkills measures a one-step turn in a repository
// with 20 skills (each with an openai.yaml) plus the bundled ones, and what
// the skills step adds to the turn's critical path: from the DiscoverSkills
// activity's scheduling to the scheduling of the first model call.
//
//	go test ./dev/devtest/ -run '^$' -bench OneStepTurnWithSkills -benchtime 20x
func BenchmarkOneStepTurnWithSkills(b *testing.B) {
	w := Start(b, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "done"}}}}})
	if err := os.MkdirAll(filepath.Join(w.Dir, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		dir := filepath.Join(w.Dir, ".agents", "skills", fmt.Sprintf("skill-%02d", i))
		if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, skills.FileName), []byte(fmt.Sprintf("---\nname: skill-%02d\ndescription: Skill number %d.\n---\n%s", i, i, strings.Repeat("Body line.\n", 2000))), 0o644)
		os.WriteFile(filepath.Join(dir, "agents", "openai.yaml"), []byte(fmt.Sprintf(
			"dependencies:\n  tools:\n    - {type: mcp, value: shared, transport: streamable_http, url: 'https://s/mcp'}\n    - {type: mcp, value: own-%d, transport: stdio, command: [srv, '%d']}\n", i, i)), 0o644)
	}
	w.StartWorker(WorkerOptions{Name: "bench"})
	ctx := context.Background()
	cfg := w.Config("")
	w.RunTurn(ctx, cfg, "warm up")
	b.ResetTimer()
	start := time.Now()
	var turns []string
	for i := 0; i < b.N; i++ {
		_, res := w.RunTurn(ctx, cfg, "one step")
		if res.Status != workflows.StatusCompleted {
			b.Fatalf("turn %s: %s", res.Status, res.Error)
		}
		turns = append(turns, res.TurnID)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	var added time.Duration
	for _, id := range turns {
		var discover, model time.Time
		it := w.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				b.Fatal(err)
			}
			a := ev.GetActivityTaskScheduledEventAttributes()
			if a == nil {
				continue
			}
			switch a.GetActivityType().GetName() {
			case "DiscoverSkills":
				discover = ev.GetEventTime().AsTime()
			case "CallModel":
				if model.IsZero() {
					model = ev.GetEventTime().AsTime()
				}
			}
		}
		if discover.IsZero() || model.IsZero() {
			b.Fatalf("turn %s: no DiscoverSkills or CallModel in its history", id)
		}
		added += model.Sub(discover)
	}
	b.ReportMetric(float64(elapsed.Microseconds())/1000/float64(b.N), "ms/turn")
	b.ReportMetric(float64(added.Microseconds())/1000/float64(b.N), "skills-ms/turn")
}

// turnHistoryJSON is a turn's first run's history as JSON text (payloads
// are JSON, so their fields show as escaped text inside it).
func turnHistoryJSON(ctx context.Context, w *World, turnID string) (string, error) {
	var b strings.Builder
	it := w.Client.GetWorkflowHistory(ctx, turnID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return "", err
		}
		for _, p := range payloadsOf(ev) {
			b.Write(p)
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}

// payloadsOf are the data of an event's activity inputs and results
// (local activities' included).
func payloadsOf(ev *historypb.HistoryEvent) [][]byte {
	var out [][]byte
	for _, p := range ev.GetActivityTaskScheduledEventAttributes().GetInput().GetPayloads() {
		out = append(out, p.GetData())
	}
	for _, p := range ev.GetActivityTaskCompletedEventAttributes().GetResult().GetPayloads() {
		out = append(out, p.GetData())
	}
	// Local activities (the in-process skills discovery) leave markers.
	details := ev.GetMarkerRecordedEventAttributes().GetDetails()
	for _, k := range slices.Sorted(maps.Keys(details)) {
		for _, p := range details[k].GetPayloads() {
			out = append(out, p.GetData())
		}
	}
	return out
}
