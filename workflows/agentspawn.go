package workflows

// Spawning a sub-agent: its task, its config (never wider than its
// parent's), and the start of its thread as a child workflow.

import (
	"fmt"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/sandbox"
)

// agentPrompt is the task of spawn_agent and send_input: message, or
// the text of items.
func agentPrompt(a harness.AgentArgs) (string, error) {
	if strings.TrimSpace(a.Message) != "" {
		if len(a.Items) > 0 {
			return "", fmt.Errorf("give either message or items, not both")
		}
		return a.Message, nil
	}
	var parts []string
	for _, it := range a.Items {
		switch it.Type {
		case "text", "":
			if it.Text != "" {
				parts = append(parts, it.Text)
			}
		case "mention", "skill":
			parts = append(parts, it.Path)
		default:
			return "", fmt.Errorf("items of type %q are not supported for sub-agents here; send text", it.Type)
		}
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("the task is empty: give message or text items")
	}
	return strings.Join(parts, "\n"), nil
}

var nicknames = []string{"Ada", "Boole", "Curie", "Dijkstra", "Euler", "Fermi", "Gauss", "Hopper", "Noether", "Lovelace", "Turing", "Shannon"}

func (t *thread) spawnAgent(ctx workflow.Context, r AgentRequest) AgentReply {
	a := r.Args
	prompt, err := agentPrompt(a)
	if err != nil {
		return AgentReply{Error: err.Error()}
	}
	forked := ""
	if a.ForkContext {
		// Done before the limits are checked: the checks and the count
		// that follows them then happen in one go.
		if forked, err = t.fork(ctx, r); err != nil {
			return AgentReply{Error: err.Error()}
		}
	}
	lim := r.Config.Agents
	if d := t.depth() + 1; d > lim.maxDepth() {
		return AgentReply{Error: fmt.Sprintf("Agent depth limit reached (agents.max_depth = %d). Solve the task yourself.", lim.maxDepth())}
	}
	cfg, err := childConfig(r.Config, a)
	if err != nil {
		return AgentReply{Error: err.Error()}
	}
	if d := runTimeout(r); d > 0 {
		cfg.TurnTimeout = min(cfg.TurnTimeout, d)
	}
	role := a.AgentType
	if role == "" {
		role = RoleDefault
	}
	t.st.NextAgent++
	n := t.st.NextAgent
	id := AgentID(t.id, n)
	hint := "Close an agent you no longer need with close_agent, or do the task yourself."
	if r.Tool == harness.AgentRun {
		hint = "Wait for a running agent to finish, or do the task yourself."
	}
	if msg := t.treeLimit(ctx, id, lim.maxThreads(), threadLimitRefusal(lim.maxThreads(), hint)); msg != "" {
		return AgentReply{Error: msg}
	}
	nick := nicknames[(n-1)%len(nicknames)]
	if n > len(nicknames) {
		nick += " " + itoa((n-1)/len(nicknames)+1)
	}
	t.st.Agents = append(t.st.Agents, SubAgent{ID: id, Nickname: nick, Role: role, Model: cfg.Model, Status: AgentPendingInit, Sent: 1, Config: &cfg,
		Counted: t.st.Parent != nil})
	parent := AgentParent{ThreadID: t.id, RootID: t.rootID(), Depth: t.depth() + 1, Role: role, Nickname: nick}
	in := ThreadInput{ThreadID: id, Config: cfg, Parent: &parent, First: &StartTurnRequest{Prompt: prompt}, Transcript: forked}
	if forked != "" {
		in.DocsDigest = r.DocsDigest
	}
	if err := t.startAgent(ctx, in, nick, role, prompt); err != nil {
		ag := t.agent(id)
		// Not open: it holds no slot.
		ag.Status = AgentShutdown
		if ag.Counted {
			ag.Counted = false
			t.freeSlot(ctx, id)
		}
		return AgentReply{Error: "could not start the agent: " + rootMessage(err)}
	}
	if ag := t.agent(id); ag.Status == AgentPendingInit {
		ag.Status = AgentRunning
	}
	out := "{" + jsonField("agent_id", jsonString(id)) + "," + jsonField("nickname", jsonString(nick)) + "}"
	return AgentReply{Output: out, Agents: []AgentState{t.stateOf(id)}}
}

// childConfig is a sub-agent's config: its parent's, with the role's
// sandbox and the model asked for, never wider than the parent's.
func childConfig(parent ThreadConfig, a harness.AgentArgs) (ThreadConfig, error) {
	cfg := parent
	cfg.DynamicTools = nil // the root's client answers those, for the root
	switch a.AgentType {
	case "", RoleDefault:
	case RoleExplorer:
		cfg.SandboxMode = string(sandbox.ReadOnly)
	case RoleWorker:
		if parent.SandboxMode == string(sandbox.ReadOnly) {
			return cfg, fmt.Errorf("role worker writes files, and this thread's sandbox is read-only: a sub-agent cannot have more than its parent. Spawn an explorer (read-only) or do the change yourself")
		}
	default:
		return cfg, fmt.Errorf("unknown agent_type %q: the roles are default, worker and explorer", a.AgentType)
	}
	if a.Model != "" && a.Model != parent.Model {
		if parent.Agents == nil || !slices.Contains(parent.Agents.Models, a.Model) {
			avail := []string{parent.Model}
			if parent.Agents != nil {
				avail = append(avail, parent.Agents.Models...)
			}
			return cfg, fmt.Errorf("unknown model %q for a sub-agent: the models available are %s; omit model to use yours", a.Model, strings.Join(avail, ", "))
		}
		cfg.Model = a.Model
	}
	if a.Effort != "" {
		cfg.Reasoning.Effort = a.Effort
		if err := cfg.Reasoning.Validate(); err != nil {
			return cfg, err
		}
	}
	if lim := parent.Agents.jobRuntime(); cfg.TurnTimeout <= 0 || cfg.TurnTimeout > lim {
		cfg.TurnTimeout = lim
	}
	return cfg, nil
}

// startAgent starts a sub-agent's thread as a child workflow and waits
// until it runs. The parent's close (continue-as-new included) leaves it
// running: a closed sub-agent is one that was sent [SignalAgentClose].
func (t *thread) startAgent(ctx workflow.Context, in ThreadInput, nick, role, prompt string) error {
	memo := map[string]any{MemoParentThread: t.id, MemoAgentRole: role, MemoAgentNickname: nick,
		MemoAgentDepth: in.Parent.Depth, MemoCwd: in.Config.Cwd}
	if in.First != nil {
		memo[MemoTitle] = oneLine(prompt, 200)
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            in.ThreadID,
		StaticSummary:         "sub-agent " + nick + " (" + role + "): " + oneLine(prompt, 160),
		WorkflowTaskTimeout:   ThreadTaskTimeout,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		Memo:                  memo,
		TypedSearchAttributes: agentSearchAttributes(in, prompt),
	})
	f := workflow.ExecuteChildWorkflow(cctx, ThreadWorkflow, in)
	return f.GetChildWorkflowExecution().Get(ctx, nil)
}

// agentSearchAttributes are a sub-agent thread's, as a front end sets
// them on a thread it starts (model, cwd, in progress, summary), so
// `threads list` and its filters see sub-agents as any thread. The
// child's start command is matched on replay by its workflow type, so
// adding them is safe.
func agentSearchAttributes(in ThreadInput, prompt string) temporal.SearchAttributes {
	if !in.Config.SearchAttributes {
		return temporal.SearchAttributes{}
	}
	up := []temporal.SearchAttributeUpdate{SAModel.ValueSet(in.Config.Model), SACwd.ValueSet(in.Config.Cwd)}
	if in.First != nil {
		up = append(up, SAStatus.ValueSet(StatusInProgress), SASummary.ValueSet(ThreadSummary(prompt)))
	}
	return temporal.NewSearchAttributes(up...)
}

// Memo keys of a sub-agent's thread workflow, which lists read.
const (
	MemoParentThread  = "parent_thread_id"
	MemoAgentRole     = "agent_role"
	MemoAgentNickname = "agent_nickname"
	MemoAgentDepth    = "agent_depth"
)
