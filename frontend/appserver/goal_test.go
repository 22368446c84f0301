package appserver

import (
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A goal tool's change reaches every client following the turn as
// thread/goal/updated while the turn runs, naming the turn; an older
// state of the goal read again later is not told.
func TestGoalToolChangeReachesFollowersLive(t *testing.T) {
	b := newFakeBackend()
	c1 := startClient(t, b)
	c1.initialize()
	id := c1.call("thread/start", map[string]any{"cwd": "/repo"})["thread"].(map[string]any)["id"].(string)
	c1.read()
	r, _ := c1.response(c1.request("turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "work"}}}))
	turnID := r["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	c2 := startClient(t, b)
	c2.initialize()
	c2.call("thread/resume", map[string]any{"threadId": id})

	at := time.Unix(1_800_000_000, 0)
	budget := int64(500)
	goal := workflows.Goal{Objective: "ship it", Status: workflows.GoalActive, TokenBudget: &budget, CreatedAt: at, UpdatedAt: at, Seq: 1}
	done := goal
	done.Status, done.UpdatedAt, done.Seq = workflows.GoalComplete, at.Add(time.Second), 2
	b.mu.Lock()
	b.threads[id].view.Goal = &done
	b.mu.Unlock()
	b.emit(turnID, workflows.Event{Type: workflows.EventGoalUpdated, Goal: &goal},
		workflows.Event{Type: workflows.EventGoalUpdated, Goal: &done},
		workflows.Event{Type: workflows.EventGoalUpdated, Goal: &goal}, // stale
		workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemAgentMessage, Text: "done"}})
	b.end(turnID, workflows.StatusCompleted, "")
	for _, c := range []*testClient{c1, c2} {
		var told []string
		for _, n := range c.until("turn/completed") {
			if n["method"] == "thread/goal/cleared" {
				t.Fatalf("cleared: %v", n)
			}
			if n["method"] != "thread/goal/updated" {
				continue
			}
			p := n["params"].(map[string]any)
			g := p["goal"].(map[string]any)
			if p["turnId"] != turnID || p["threadId"] != id || g["tokenBudget"] != float64(500) {
				t.Fatalf("thread/goal/updated: %v", p)
			}
			told = append(told, g["status"].(string))
		}
		if len(told) != 2 || told[0] != "active" || told[1] != "complete" {
			t.Fatalf("goal states told, in order: %v (want active, complete)", told)
		}
	}
}
