package devtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// recordAgents: a claude-code thread whose answer runs two Task calls side
// by side (spawn, wait for the agent's turn, close), and a codex thread
// with max_depth 2 whose second turn spawns a sub-agent with fork_context;
// that agent asks the root for slots of max_threads (one granted, one
// refused), waits for its own, and is closed with it. It saves the root
// threads, their sub-agents' threads and all their turns.
func recordAgents(t *testing.T) {
	stamp := time.Now().Format("150405.000")
	task, tree := "task-"+stamp, "tree-"+stamp
	child := workflows.AgentID(tree, 1)
	grand := workflows.AgentID(child, 1)
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "two tasks", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{
				call("Task", `{"description":"look","prompt":"TASK-A look at a","subagent_type":"general-purpose"}`),
				call("Task", `{"description":"look","prompt":"TASK-B look at b","subagent_type":"Explore"}`)}},
			{Text: "unused"},
			{Text: "both tasks done"},
		}},
		{Match: "TASK-A", Steps: []fakemodel.Step{{Text: "a is fine"}}},
		{Match: "TASK-B", Steps: []fakemodel.Step{{Text: "b is fine"}}},
		{Match: "remember", Steps: []fakemodel.Step{{Shell: "echo noted"}, {Text: "remembered"}}},
		{Match: "fork a tree", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("spawn_agent", `{"message":"TREE-CHILD delegate","fork_context":true}`)}},
			{ToolCalls: []fakemodel.ToolCall{call("wait_agent", `{"targets":["`+child+`"],"timeout_ms":600000}`)}},
			{ToolCalls: []fakemodel.ToolCall{call("close_agent", `{"target":"`+child+`"}`)}},
			{Text: "tree done"},
		}},
		{Match: "TREE-CHILD", Steps: []fakemodel.Step{
			{ToolCalls: []fakemodel.ToolCall{call("spawn_agent", `{"message":"GRAND one"}`), call("spawn_agent", `{"message":"GRAND two"}`)}},
			{Text: "unused"},
			{ToolCalls: []fakemodel.ToolCall{call("wait_agent", `{"targets":["`+grand+`"],"timeout_ms":600000}`)}},
			{Text: "delegated"},
		}},
		{Match: "GRAND", Steps: []fakemodel.Step{{Text: "grand done"}}},
	}})
	w.StartWorker(WorkerOptions{Name: "recorder", NoShellSnapshot: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	cfg := agentsConfig(w)
	cfg.Harness = "claude-code"
	cfg.Provider.WireAPI = activities.WireMessages
	cfg.Provider.BaseURL = w.Model.BaseURL()
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: task, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "two tasks"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, task, resp.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "both tasks done" {
		t.Fatalf("task turn: %+v", res)
	}

	cfg = agentsConfig(w)
	cfg.Agents.MaxDepth, cfg.Agents.MaxThreads = 2, 2
	resp, err = threads.Start(ctx, w.Client, threads.NewThread{ThreadID: tree, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: "remember this"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, tree, resp.TurnID); res.Status != workflows.StatusCompleted {
		t.Fatalf("first tree turn: %+v", res)
	}
	next, err := threads.Reply(ctx, w.Client, tree, workflows.StartTurnRequest{Prompt: "fork a tree"})
	if err != nil {
		t.Fatal(err)
	}
	if res := w.WaitTurn(ctx, tree, next.TurnID); res.Status != workflows.StatusCompleted || res.FinalMessage != "tree done" {
		t.Fatalf("tree turn: %+v", res)
	}
	view, err := threads.Read(ctx, w.Client, child)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Turns) != 1 || view.Turns[0].FinalMessage != "delegated" || len(view.Agents) != 1 || view.Agents[0].Status != workflows.AgentShutdown {
		t.Fatalf("the forked agent: %+v", view)
	}

	if len(w.Model.Server.RequestsContaining("agent thread limit reached (agents.max_threads = 2; 2 open)")) == 0 {
		t.Fatal("the forked agent's second spawn was not refused by the tree's count")
	}
	// Every sub-agent was closed: its workflow ends, its history is whole.
	taskView, err := threads.Read(ctx, w.Client, task)
	if err != nil {
		t.Fatal(err)
	}
	subs := map[string]string{child: "tree-child", grand: "tree-grandchild"}
	for i, a := range taskView.Agents {
		subs[a.ID] = "task-agent" + string(rune('1'+i))
	}
	for id := range subs {
		if err := w.Client.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
			t.Fatalf("sub-agent %s: %v", id, err)
		}
	}
	w.save(ctx, "task", task)
	w.save(ctx, "tree", tree)
	for id, name := range subs {
		w.save(ctx, name, id)
	}
}

// recordNotice: a codex thread whose first turn spawns an agent and waits
// for it (the sub-agent's notice reaches the running turn), whose second
// spawns one that outlives the turn (the notice waits in the thread), and
// whose third sends that notice before its prompt.
func recordNotice(t *testing.T) {
	root := "notice-" + time.Now().Format("150405.000")
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
	w.save(ctx, "notice", root)
}
