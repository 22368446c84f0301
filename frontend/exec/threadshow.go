package exec

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// TurnDetail is one turn as `threads show` prints it.
type TurnDetail struct {
	TurnID string `json:"turn_id"`
	Number int    `json:"number"`
	Prompt string `json:"prompt,omitempty"`
	// RunKind is the kind of run the turn was ("" for a person's).
	RunKind string                `json:"run_kind,omitempty"`
	Result  *workflows.TurnResult `json:"result,omitempty"`
	Items   []workflows.Item      `json:"items"`
	// ItemsError says why the items could not be read (no worker to
	// answer the query, ...).
	ItemsError string `json:"items_error,omitempty"`
}

// ThreadDetail is a thread as `threads show` prints it.
type ThreadDetail struct {
	ThreadID string                 `json:"thread_id"`
	Open     bool                   `json:"open"`
	Config   workflows.ThreadConfig `json:"config"`
	Usage    any                    `json:"usage"`
	Turns    []TurnDetail           `json:"turns"`
	// Parent is set for a sub-agent; Agents are the thread's sub-agents,
	// each with its own.
	Parent *workflows.AgentParent `json:"parent,omitempty"`
	Agents []AgentDetail          `json:"agents,omitempty"`
	// Goal is the thread's goal (goal.go).
	Goal *workflows.Goal `json:"goal,omitempty"`
	// BackgroundTerminals are its exec sessions still running after
	// their turn (bgterm.go).
	BackgroundTerminals []workflows.BackgroundTerminal `json:"background_terminals,omitempty"`

	// view is what the thread answered, for the human output.
	view workflows.ThreadView
}

// ReadThread reads a thread as `threads show` prints it: its turns with
// their prompts and items, and its tree of sub-agents. The errors are
// those of [threads.Open] and [threads.Read].
func ReadThread(ctx context.Context, c client.Client, id string) (ThreadDetail, error) {
	open, err := threads.Open(ctx, c, id)
	if err != nil {
		return ThreadDetail{}, err
	}
	v, err := threads.Read(ctx, c, id)
	if err != nil {
		return ThreadDetail{}, err
	}
	d := ThreadDetail{ThreadID: v.ThreadID, Open: open, Config: v.Config, Usage: v.Usage, Parent: v.Parent, Goal: v.Goal, view: v}
	if len(v.Agents) > 0 {
		d.Agents = agentTree(ctx, c, v.Agents, 1)
	}
	for i := range v.Turns {
		d.Turns = append(d.Turns, readTurn(ctx, c, v.Turns[i].TurnID, v.Turns[i].Number, &v.Turns[i]))
	}
	if v.RunningTurn != "" {
		d.Turns = append(d.Turns, readTurn(ctx, c, v.RunningTurn, turnNumber(v.RunningTurn), nil))
	}
	d.BackgroundTerminals, _ = threads.BackgroundTerminals(ctx, c, id)
	return d, nil
}

// PrintThread writes a thread for a person.
func PrintThread(w io.Writer, d ThreadDetail) {
	state := "open"
	if !d.Open {
		state = workflows.StatusArchived
	}
	c := d.view.Config
	fmt.Fprintf(w, "thread %s · %s\n", d.ThreadID, state)
	fmt.Fprintf(w, "model %s (provider %s) · harness %s · cwd %s\n", c.Model, c.Provider.ID, c.Harness, c.Cwd)
	fmt.Fprintf(w, "sandbox %s · approval %s\n", c.SandboxMode, c.ApprovalPolicy)
	fmt.Fprintf(w, "tokens: in %d (cached %d) · out %d · %d turns · context %d tokens\n",
		d.view.Usage.InputTokens, d.view.Usage.CachedInputTokens, d.view.Usage.OutputTokens, len(d.Turns), d.view.ContextTokens)
	if d.Parent != nil {
		fmt.Fprintln(w, parentLine(d.Parent))
	}
	if d.Goal != nil {
		PrintGoal(w, d.Goal)
	}
	printTerminals(w, d.BackgroundTerminals)
	if len(d.Agents) > 0 {
		fmt.Fprintf(w, "sub-agents (%d):\n", len(d.Agents))
		printAgentTree(w, d.Agents, 0)
	}
	for _, t := range d.Turns {
		fmt.Fprintln(w)
		if r := t.Result; r != nil {
			fmt.Fprintf(w, "turn %d · %s · %d steps · tokens in %d out %d · %s%s\n", t.Number, r.Status, r.Steps,
				r.Usage.InputTokens, r.Usage.OutputTokens, t.TurnID, kindSuffix(t.RunKind))
			if r.Error != "" {
				fmt.Fprintf(w, "  error: %s\n", r.Error)
			}
			if len(r.InstructionSources) > 0 {
				fmt.Fprintf(w, "  instructions: %s\n", strings.Join(r.InstructionSources, ", "))
			}
		} else {
			fmt.Fprintf(w, "turn %d · running · %s%s\n", t.Number, t.TurnID, kindSuffix(t.RunKind))
		}
		if t.Prompt != "" {
			fmt.Fprintf(w, "  > %s\n", clip(t.Prompt, 200))
		}
		for _, it := range t.Items {
			fmt.Fprintf(w, "  %s\n", itemLine(it))
		}
		if t.ItemsError != "" {
			fmt.Fprintf(w, "  (items unavailable: %s)\n", t.ItemsError)
		}
	}
}

// PrintThreadList writes threads as a table, each followed by its
// sub-agents.
func PrintThreadList(w io.Writer, list []threads.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "THREAD\tSTATUS\tLAST ACTIVITY\tCWD\tTITLE")
	for _, t := range threads.AsTree(list) {
		id, title := t.ThreadID, t.Title
		if t.Depth > 0 {
			id = strings.Repeat("  ", t.Depth-1) + "└ " + id
		}
		if title == "" && t.AgentNickname != "" {
			title = "sub-agent " + t.AgentNickname + " (" + t.AgentRole + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", id, t.Status, t.LastActivity.Local().Format("2006-01-02 15:04:05"),
			t.Cwd, clip(title, 60))
	}
	return tw.Flush()
}

// readTurn reads a turn's prompt and the last state of each of its items.
func readTurn(ctx context.Context, c client.Client, turnID string, number int, res *workflows.TurnResult) TurnDetail {
	d := TurnDetail{TurnID: turnID, Number: number, Result: res, Items: []workflows.Item{}}
	if in, err := threads.StartInput(ctx, c, turnID); err == nil {
		d.Prompt, d.RunKind = in.Prompt, in.RunKind
	}
	index := map[string]int{}
	err := AllEvents(ctx, c, turnID, func(e workflows.Event) {
		if e.Item == nil {
			return
		}
		if i, ok := index[e.Item.ID]; ok {
			d.Items[i] = *e.Item
			return
		}
		index[e.Item.ID] = len(d.Items)
		d.Items = append(d.Items, *e.Item)
	})
	if err != nil {
		d.ItemsError = rootCause(err).Error()
	}
	return d
}

// AllEvents calls fn for every event a turn's log holds now.
func AllEvents(ctx context.Context, c client.Client, turnID string, fn func(workflows.Event)) error {
	after := 0
	for {
		p, err := threads.Events(ctx, c, turnID, after)
		if err != nil {
			return err
		}
		for _, e := range p.Events {
			fn(e)
			after = e.Seq
		}
		if len(p.Events) == 0 || after >= p.Last {
			return nil
		}
	}
}

func turnNumber(turnID string) int {
	var n int
	if i := strings.LastIndex(turnID, "/turn-"); i >= 0 {
		fmt.Sscanf(turnID[i+len("/turn-"):], "%d", &n)
	}
	return n
}

// itemLine is one line about an item.
func itemLine(it workflows.Item) string {
	switch it.Type {
	case workflows.ItemAgentMessage:
		return "agent: " + clip(it.Text, 200)
	case workflows.ItemReasoning:
		return "thinking: " + clip(it.Text, 120)
	case workflows.ItemCommandExecution:
		exit := ""
		if it.ExitCode != nil {
			exit = fmt.Sprintf(" · exit %d", *it.ExitCode)
		}
		return fmt.Sprintf("$ %s  [%s%s]", clip(it.Command, 120), it.Status, exit)
	case workflows.ItemFileChange:
		var files []string
		for _, c := range it.Changes {
			files = append(files, c.Kind+" "+c.Path)
		}
		return fmt.Sprintf("patch: %s  [%s]", strings.Join(files, ", "), it.Status)
	case workflows.ItemTodoList:
		done := 0
		for _, t := range it.Items {
			if t.Completed {
				done++
			}
		}
		return fmt.Sprintf("plan: %d/%d steps done", done, len(it.Items))
	case workflows.ItemError:
		return "error: " + clip(it.Message, 200)
	case workflows.ItemContextCompaction:
		if it.Status != workflows.StatusCompleted {
			return "context compaction failed: " + clip(it.Message, 200)
		}
		return "context compacted: " + clip(it.Text, 160)
	case workflows.ItemMCPToolCall:
		return fmt.Sprintf("mcp %s.%s %s  [%s]", it.Server, it.Tool, clip(it.Arguments, 80), it.Status)
	case workflows.ItemCollabAgentToolCall:
		if a := it.Agent; a != nil {
			return fmt.Sprintf("sub-agents: %s %s  [%s]", a.Tool, strings.Join(a.Receivers, ", "), it.Status)
		}
	}
	return it.Type
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}
