package devtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// TestRecordCode12Histories records the paths of turn code 12: a codex
// thread whose first turn spawns an agent and waits for it (the notice
// reaches the running turn), whose second spawns one that outlives the
// turn (the notice waits in the thread), and whose third sends that
// notice before its prompt. With -record it writes the code12-notice-*
// files (the root thread and its turns); without, it checks that the
// scenario runs.
func TestRecordCode12Histories(t *testing.T) {
	root := "code12-notice-" + time.Now().Format("150405.000")
	kidA := workflows.AgentID(root, 1)
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "NOTE-RUN", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("spawn_agent", `{"message":"KID-A look"}`)}},
			{ToolCalls: []fakemodel.ToolCall{call("wait_agent", `{"targets":["`+kidA+`"],"timeout_ms":600000}`)}},
			{Text: "a told"},
		}},
		{Match: "NOTE-IDLE", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("spawn_agent", `{"message":"KID-B slow"}`)}},
			{Text: "left it"},
		}},
		{Match: "NOTE-ASK", Steps: []fakemodel.Step{{Text: "b said done"}}},
		{Match: "KID-A", Steps: []fakemodel.Step{{Text: "a done"}}},
		{Match: "KID-B", Steps: []fakemodel.Step{{Shell: "sleep 1"}, {Text: "b done"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	turn := func(prompt, want string) {
		t.Helper()
		var id string
		if prompt == "NOTE-RUN spawn and wait" {
			resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: root, TaskQueue: TaskQueue, Config: agentsConfig(w)},
				workflows.StartTurnRequest{Prompt: prompt})
			if err != nil {
				t.Fatal(err)
			}
			id = resp.TurnID
		} else {
			resp, err := threads.Reply(ctx, w.Client, root, workflows.StartTurnRequest{Prompt: prompt})
			if err != nil {
				t.Fatal(err)
			}
			id = resp.TurnID
		}
		if res := w.WaitTurn(ctx, root, id); res.Status != workflows.StatusCompleted || res.FinalMessage != want {
			t.Fatalf("turn %q: %+v", prompt, res)
		}
	}
	turn("NOTE-RUN spawn and wait", "a told")
	turn("NOTE-IDLE spawn and go", "left it")
	for {
		// Until the second agent's turn has ended and been reported.
		v, err := threads.Read(ctx, w.Client, root)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Agents) == 2 && v.Agents[1].Status == workflows.AgentCompleted {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the second agent did not finish: %+v", v.Agents)
		}
		time.Sleep(50 * time.Millisecond)
	}
	turn("NOTE-ASK what did b say", "b said done")

	told := func(marker, report string) bool {
		for _, r := range w.Model.Server.RequestsContaining(marker) {
			if strings.Contains(string(r.Body), `\"completed\":\"`+report+`\"}}\n</subagent_notification>`) {
				return true
			}
		}
		return false
	}
	if !told("NOTE-RUN", "a done") {
		t.Error("the first turn's model was not told that agent A ended")
	}
	if !told("NOTE-ASK", "b done") {
		t.Error("the third turn's model was not told that agent B ended")
	}
	w.save(ctx, "code12-notice", root)
}
