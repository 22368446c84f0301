package workflows

import (
	"fmt"
	"slices"

	"go.temporal.io/sdk/workflow"
)

// agents.max_threads counts the open sub-agents of the whole tree under a
// root thread, as Codex counts them: the
// root keeps the count. Its own sub-agents it knows; a sub-agent that
// spawns asks the root for a slot first ([SignalAgentSlot], answered by
// [SignalAgentSlotReply]) and gives it back when it closes that agent
// ([SignalAgentSlotFree]). With max_depth 1, the default, only the root
// spawns and none of these signals is sent.
const (
	// SignalAgentSlot: a sub-agent asks its root for a slot ([AgentSlot]).
	SignalAgentSlot = "agents.slot"
	// SignalAgentSlotReply: the root's answer ([AgentSlotReply]).
	SignalAgentSlotReply = "agents.slot.reply"
	// SignalAgentSlotFree: a descendant's agent closed ([AgentSlot]).
	SignalAgentSlotFree = "agents.slot.free"
)

// AgentSlot is the payload of [SignalAgentSlot] and [SignalAgentSlotFree].
type AgentSlot struct {
	// From is the asking thread; AgentID the agent the slot is for.
	From    string `json:"from"`
	AgentID string `json:"agent_id"`
	// Max is the asking turn's agents.max_threads.
	Max int `json:"max,omitempty"`
}

// AgentSlotReply is the payload of [SignalAgentSlotReply].
type AgentSlotReply struct {
	AgentID string `json:"agent_id"`
	OK      bool   `json:"ok"`
	// Open is how many sub-agents the tree has open.
	Open int `json:"open"`
}

// registerTree listens for slot requests and releases (as a root) and
// for the root's answers (as a sub-agent).
func (t *thread) registerTree(ctx workflow.Context) {
	asks := workflow.GetSignalChannel(ctx, SignalAgentSlot)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var s AgentSlot
			asks.Receive(ctx, &s)
			rep := AgentSlotReply{AgentID: s.AgentID, Open: t.treeOpen()}
			if rep.Open < s.Max {
				t.st.TreeAgents = append(t.st.TreeAgents, s.AgentID)
				rep.OK = true
			}
			from := s.From
			workflow.Go(ctx, func(ctx workflow.Context) {
				_ = workflow.SignalExternalWorkflow(ctx, from, "", SignalAgentSlotReply, rep).Get(ctx, nil)
			})
		}
	})
	frees := workflow.GetSignalChannel(ctx, SignalAgentSlotFree)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var s AgentSlot
			frees.Receive(ctx, &s)
			t.st.TreeAgents = slices.DeleteFunc(t.st.TreeAgents, func(id string) bool { return id == s.AgentID })
		}
	})
	replies := workflow.GetSignalChannel(ctx, SignalAgentSlotReply)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var r AgentSlotReply
			replies.Receive(ctx, &r)
			if t.slotReplies == nil {
				t.slotReplies = map[string]AgentSlotReply{}
			}
			t.slotReplies[r.AgentID] = r
		}
	})
}

// treeOpen is the root's count of the tree's open sub-agents.
func (t *thread) treeOpen() int { return t.openAgents() + len(t.st.TreeAgents) }

// treeLimit checks max_threads over the tree before agent id opens (a
// spawn or a reopen). The root counts itself; a sub-agent asks the root,
// which keeps the slot for id until [thread.freeSlot]. It returns the
// refusal the model reads, or "".
func (t *thread) treeLimit(ctx workflow.Context, id string, max int, refusal func(n int) string) string {
	if t.st.Parent == nil {
		if n := t.treeOpen(); n >= max {
			return refusal(n)
		}
		return ""
	}
	ask := AgentSlot{From: t.id, AgentID: id, Max: max}
	if err := workflow.SignalExternalWorkflow(ctx, t.rootID(), "", SignalAgentSlot, ask).Get(ctx, nil); err != nil {
		return "could not reach the root thread to count its agents: " + rootMessage(err)
	}
	_ = workflow.Await(ctx, func() bool { _, ok := t.slotReplies[id]; return ok })
	rep := t.slotReplies[id]
	delete(t.slotReplies, id)
	if !rep.OK {
		return refusal(rep.Open)
	}
	return ""
}

// freeSlot gives the root back the slot of a sub-agent's agent that
// closed (or never started).
func (t *thread) freeSlot(ctx workflow.Context, id string) {
	if t.st.Parent == nil {
		return
	}
	// A root that is gone counts nothing any more.
	_ = workflow.SignalExternalWorkflow(ctx, t.rootID(), "", SignalAgentSlotFree, AgentSlot{From: t.id, AgentID: id}).Get(ctx, nil)
}

func threadLimitRefusal(max int, hint string) func(n int) string {
	return func(n int) string {
		return fmt.Sprintf("agent thread limit reached (agents.max_threads = %d; %d open). %s", max, n, hint)
	}
}
