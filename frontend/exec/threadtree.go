package exec

import (
	"context"
	"fmt"
	"io"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// AgentDetail is one sub-agent as `threads show` prints it: the parent's
// record of it, and its own sub-agents under it.
type AgentDetail struct {
	ThreadID string `json:"thread_id"`
	Nickname string `json:"nickname,omitempty"`
	Role     string `json:"role,omitempty"`
	Model    string `json:"model,omitempty"`
	Status   string `json:"status"`
	// Message is its last turn's final message or error.
	Message string        `json:"message,omitempty"`
	Agents  []AgentDetail `json:"agents,omitempty"`
	// Error says why its own sub-agents could not be read.
	Error string `json:"error,omitempty"`
}

// maxAgentDepth bounds how deep `threads show` reads the tree (a cycle
// cannot happen, but a thread id is not checked to be new).
const maxAgentDepth = 8

// agentTree reads a thread's sub-agents and, below each, its own: one
// query per sub-agent.
func agentTree(ctx context.Context, c client.Client, agents []workflows.SubAgent, depth int) []AgentDetail {
	out := make([]AgentDetail, 0, len(agents))
	for _, a := range agents {
		d := AgentDetail{ThreadID: a.ID, Nickname: a.Nickname, Role: a.Role, Model: a.Model, Status: a.Status, Message: a.Message}
		if depth < maxAgentDepth {
			if v, err := threads.Read(ctx, c, a.ID); err != nil {
				d.Error = rootCause(err).Error()
			} else if len(v.Agents) > 0 {
				d.Agents = agentTree(ctx, c, v.Agents, depth+1)
			}
		}
		out = append(out, d)
	}
	return out
}

// printAgentTree writes the sub-agents, one line each, indented by depth.
func printAgentTree(w io.Writer, agents []AgentDetail, depth int) {
	for _, a := range agents {
		who := a.Nickname
		if a.Role != "" {
			who += " (" + a.Role + ")"
		}
		line := fmt.Sprintf("%s└ %s  %s · %s", strings.Repeat("  ", depth+1), a.ThreadID, strings.TrimSpace(who), a.Status)
		if a.Message != "" {
			line += ": " + clip(a.Message, 100)
		}
		if a.Error != "" {
			line += " (its sub-agents unavailable: " + a.Error + ")"
		}
		fmt.Fprintln(w, line)
		printAgentTree(w, a.Agents, depth+1)
	}
}

// parentLine says whose sub-agent a thread is.
func parentLine(p *workflows.AgentParent) string {
	s := "sub-agent"
	if p.Nickname != "" {
		s += " " + p.Nickname
	}
	if p.Role != "" {
		s += " (" + p.Role + ")"
	}
	s += " of " + p.ThreadID
	if p.RootID != "" && p.RootID != p.ThreadID {
		s += " · root " + p.RootID
	}
	return fmt.Sprintf("%s · depth %d", s, p.Depth)
}
