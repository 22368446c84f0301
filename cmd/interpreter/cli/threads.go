package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// ThreadsCmd groups the commands that read and manage threads. They use
// only Temporal visibility, workflow queries and updates, so they work
// against any cluster that runs interpreter workers.
type ThreadsCmd struct {
	List      ThreadsListCmd      `cmd:"" help:"List threads (open ones, newest first)."`
	Show      ThreadsShowCmd      `cmd:"" help:"Show a thread: its turns, their items and token usage."`
	Events    ThreadsEventsCmd    `cmd:"" help:"Print the event log of a thread's turns as JSON lines."`
	Compact   ThreadsCompactCmd   `cmd:"" help:"Compact an idle thread's context now: the model summarizes it, later turns start from the summary."`
	Archive   ThreadsArchiveCmd   `cmd:"" help:"Archive an idle thread: its workflow completes and it leaves the list."`
	Interrupt ThreadsInterruptCmd `cmd:"" help:"Stop a thread's running turn (it ends as interrupted)."`
}

// threadsBackend loads the configuration and connects to the server.
func threadsBackend(ctx context.Context, g *Globals, stderr io.Writer) (*backend, *config.Config, error) {
	cfg, err := g.load(nil)
	if err != nil {
		return nil, nil, err
	}
	b, err := connect(ctx, cfg, stderr)
	if err != nil {
		return nil, nil, err
	}
	return b, cfg, nil
}

// threadExit turns the errors of the thread helpers into exit errors.
func threadExit(threadID string, err error) error {
	switch {
	case errors.Is(err, threads.ErrThreadNotFound):
		return exitf(1, "thread not found: %s", threadID)
	case errors.Is(err, threads.ErrThreadArchived):
		return exitf(1, "thread %s is archived", threadID)
	}
	return exitf(1, "%v", rootCause(err))
}

// ThreadsListCmd lists threads from visibility.
type ThreadsListCmd struct {
	Cwd    string `help:"Only threads whose working directory is DIR." placeholder:"DIR"`
	Status string `help:"Only threads with this status: in_progress, completed, failed, interrupted (the last turn's) or archived." placeholder:"S"`
	All    bool   `help:"Include closed (archived, terminated) threads."`
	Limit  int    `default:"50" help:"At most this many threads."`
	JSON   bool   `name:"json" help:"One JSON object per line."`
}

// Run lists.
func (l *ThreadsListCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	switch l.Status {
	case "", workflows.StatusInProgress, workflows.StatusCompleted, workflows.StatusFailed, workflows.StatusInterrupted, workflows.StatusArchived:
	default:
		return exitf(2, "invalid --status %q: valid values are in_progress, completed, failed, interrupted, archived", l.Status)
	}
	opts := threads.ListOptions{Status: l.Status, All: l.All, Limit: l.Limit}
	if l.Cwd != "" {
		abs, err := filepath.Abs(l.Cwd)
		if err != nil {
			return exitf(2, "bad --cwd: %v", err)
		}
		opts.Cwd = abs
	}
	b, cfg, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	opts.SearchAttributes = hasSearchAttributes(ctx, b, cfg.Temporal.Namespace)
	if !opts.SearchAttributes {
		fmt.Fprintf(stdio.Err, "interpreter: namespace %s lacks the thread search attributes, so this reads every open thread; `interpreter setup` registers them (or prints what an admin must run)\n",
			cfg.Temporal.Namespace)
	}
	threads, err := threads.List(ctx, b.client, opts)
	if err != nil {
		return exitf(1, "%v", err)
	}
	if l.JSON {
		enc := json.NewEncoder(stdio.Out)
		for _, t := range threads {
			if err := enc.Encode(t); err != nil {
				return err
			}
		}
		return nil
	}
	if len(threads) == 0 {
		fmt.Fprintln(stdio.Err, "no threads")
		return nil
	}
	tw := tabwriter.NewWriter(stdio.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "THREAD\tSTATUS\tLAST ACTIVITY\tCWD\tTITLE")
	for _, t := range threadsTree(threads) {
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

// ThreadsShowCmd shows one thread.
type ThreadsShowCmd struct {
	ID   string `arg:"" help:"Thread id."`
	JSON bool   `name:"json" help:"Print one JSON object."`
}

// turnDetail is one turn as `threads show` prints it.
type turnDetail struct {
	TurnID string                `json:"turn_id"`
	Number int                   `json:"number"`
	Prompt string                `json:"prompt,omitempty"`
	Result *workflows.TurnResult `json:"result,omitempty"`
	Items  []workflows.Item      `json:"items"`
	// ItemsError says why the items could not be read (no worker to
	// answer the query, ...).
	ItemsError string `json:"items_error,omitempty"`
}

type threadDetail struct {
	ThreadID string                 `json:"thread_id"`
	Open     bool                   `json:"open"`
	Config   workflows.ThreadConfig `json:"config"`
	Usage    any                    `json:"usage"`
	Turns    []turnDetail           `json:"turns"`
	// Parent is set for a sub-agent; Agents are the thread's sub-agents,
	// each with its own.
	Parent *workflows.AgentParent `json:"parent,omitempty"`
	Agents []agentDetail          `json:"agents,omitempty"`
}

// Run shows.
func (s *ThreadsShowCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	open, err := threads.Open(ctx, b.client, s.ID)
	if err != nil {
		return threadExit(s.ID, err)
	}
	v, err := threads.Read(ctx, b.client, s.ID)
	if err != nil {
		return threadExit(s.ID, err)
	}
	d := threadDetail{ThreadID: v.ThreadID, Open: open, Config: v.Config, Usage: v.Usage, Parent: v.Parent}
	if len(v.Agents) > 0 {
		d.Agents = agentTree(ctx, b, v.Agents, 1)
	}
	for i := range v.Turns {
		d.Turns = append(d.Turns, readTurn(ctx, b, v.Turns[i].TurnID, v.Turns[i].Number, &v.Turns[i]))
	}
	if v.RunningTurn != "" {
		d.Turns = append(d.Turns, readTurn(ctx, b, v.RunningTurn, turnNumber(v.RunningTurn), nil))
	}
	if s.JSON {
		return json.NewEncoder(stdio.Out).Encode(d)
	}
	w := stdio.Out
	state := "open"
	if !open {
		state = workflows.StatusArchived
	}
	c := v.Config
	fmt.Fprintf(w, "thread %s · %s\n", v.ThreadID, state)
	fmt.Fprintf(w, "model %s (provider %s) · harness %s · cwd %s\n", c.Model, c.Provider.ID, c.Harness, c.Cwd)
	fmt.Fprintf(w, "sandbox %s · approval %s\n", c.SandboxMode, c.ApprovalPolicy)
	fmt.Fprintf(w, "tokens: in %d (cached %d) · out %d · %d turns · context %d tokens\n",
		v.Usage.InputTokens, v.Usage.CachedInputTokens, v.Usage.OutputTokens, len(d.Turns), v.ContextTokens)
	if v.Parent != nil {
		fmt.Fprintln(w, parentLine(v.Parent))
	}
	if len(d.Agents) > 0 {
		fmt.Fprintf(w, "sub-agents (%d):\n", len(d.Agents))
		printAgentTree(w, d.Agents, 0)
	}
	for _, t := range d.Turns {
		fmt.Fprintln(w)
		if r := t.Result; r != nil {
			fmt.Fprintf(w, "turn %d · %s · %d steps · tokens in %d out %d · %s\n", t.Number, r.Status, r.Steps,
				r.Usage.InputTokens, r.Usage.OutputTokens, t.TurnID)
			if r.Error != "" {
				fmt.Fprintf(w, "  error: %s\n", r.Error)
			}
			if len(r.InstructionSources) > 0 {
				fmt.Fprintf(w, "  instructions: %s\n", strings.Join(r.InstructionSources, ", "))
			}
		} else {
			fmt.Fprintf(w, "turn %d · running · %s\n", t.Number, t.TurnID)
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
	return nil
}

// readTurn reads a turn's prompt and the last state of each of its items.
func readTurn(ctx context.Context, b *backend, turnID string, number int, res *workflows.TurnResult) turnDetail {
	d := turnDetail{TurnID: turnID, Number: number, Result: res, Items: []workflows.Item{}}
	if p, err := threads.Prompt(ctx, b.client, turnID); err == nil {
		d.Prompt = p
	}
	index := map[string]int{}
	err := allEvents(ctx, b, turnID, func(e workflows.Event) {
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

// allEvents calls fn for every event a turn's log holds now.
func allEvents(ctx context.Context, b *backend, turnID string, fn func(workflows.Event)) error {
	after := 0
	for {
		p, err := threads.Events(ctx, b.client, turnID, after)
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

// ThreadsEventsCmd prints the event log of a thread's turns.
type ThreadsEventsCmd struct {
	ID     string `arg:"" help:"Thread id."`
	Follow bool   `short:"f" help:"Then wait for new events of the running turn, until it ends."`
}

// Run prints the events, one JSON object per line.
func (e *ThreadsEventsCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	v, err := threads.Read(ctx, b.client, e.ID)
	if err != nil {
		return threadExit(e.ID, err)
	}
	enc := json.NewEncoder(stdio.Out)
	emit := func(ev workflows.Event) { _ = enc.Encode(ev) }
	for _, t := range v.Turns {
		if err := allEvents(ctx, b, t.TurnID, emit); err != nil {
			return exitf(1, "reading the events of %s: %v", t.TurnID, rootCause(err))
		}
	}
	if v.RunningTurn == "" {
		if e.Follow {
			fmt.Fprintf(stdio.Err, "interpreter: no turn is running on thread %s\n", e.ID)
		}
		return nil
	}
	if !e.Follow {
		if err := allEvents(ctx, b, v.RunningTurn, emit); err != nil {
			return exitf(1, "reading the events of %s: %v", v.RunningTurn, rootCause(err))
		}
		return nil
	}
	err = threads.FollowTurn(ctx, b.client, v.RunningTurn, 0, emit)
	if err != nil && ctx.Err() == nil {
		return exitf(1, "following %s: %v", v.RunningTurn, rootCause(err))
	}
	return nil
}

// ThreadsCompactCmd compacts a thread's context between turns.
type ThreadsCompactCmd struct {
	ID   string `arg:"" help:"Thread id."`
	JSON bool   `name:"json" help:"Print the result as one JSON object."`
}

// Run compacts.
func (c *ThreadsCompactCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	resp, err := threads.Compact(ctx, b.client, c.ID)
	if err != nil {
		return threadExit(c.ID, err)
	}
	if c.JSON {
		return json.NewEncoder(stdio.Out).Encode(resp)
	}
	fmt.Fprintf(stdio.Out, "compacted %s: %d entries -> %d, context ~%d -> ~%d tokens\nsummary:\n%s\n",
		c.ID, resp.EntriesBefore, resp.EntriesAfter, resp.TokensBefore, resp.TokensAfter, resp.Summary)
	return nil
}

// ThreadsArchiveCmd archives a thread.
type ThreadsArchiveCmd struct {
	ID string `arg:"" help:"Thread id."`
}

// Run archives.
func (a *ThreadsArchiveCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, _, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	actx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := threads.Archive(actx, b.client, a.ID); err != nil {
		return threadExit(a.ID, err)
	}
	fmt.Fprintf(stdio.Out, "archived %s\n", a.ID)
	return nil
}

// threadsTree lists each thread followed by its sub-agents.
var threadsTree = threads.AsTree
