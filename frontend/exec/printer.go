package exec

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/interpreter-dev/interpreter/workflows"
)

// printer shows a turn: JSON lines in the shape `codex exec --json` uses,
// or a human transcript on stderr with the final message on stdout.
type printer struct {
	json bool
	io   Stdio
}

func newPrinter(asJSON bool, io Stdio) *printer { return &printer{json: asJSON, io: io} }

func (p *printer) emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(p.io.Out, "%s\n", b)
}

func (p *printer) threadStarted(threadID, turnID string) {
	if p.json {
		p.emit(threadStartedEvent{ThreadID: threadID, Type: "thread.started"})
		return
	}
	fmt.Fprintf(p.io.Err, "thread %s · %s\n", threadID, turnID)
}

func (p *printer) event(e workflows.Event) {
	if p.json {
		p.jsonEvent(e)
		return
	}
	p.humanEvent(e)
}

func (p *printer) jsonEvent(e workflows.Event) {
	switch e.Type {
	case workflows.EventTurnStarted:
		p.emit(typeOnlyEvent{Type: "turn.started"})
	case workflows.EventItemStarted, workflows.EventItemUpdated, workflows.EventItemCompleted:
		p.emit(itemEvent{Item: jsonItem(e.Item), Type: e.Type})
	case workflows.EventModelRetry:
		// As `codex exec --json` shows an error notification that will
		// be retried: a top-level error event, the turn going on.
		p.emit(errorEvent{Message: workflows.RetryText(e), Type: "error"})
	}
	// turn.completed / turn.failed are printed by finish, from the turn's
	// result, which also carries the final usage.
}

func (p *printer) humanEvent(e workflows.Event) {
	w := p.io.Err
	switch {
	case e.Type == workflows.EventModelRetry:
		fmt.Fprintf(w, "%s\n", workflows.RetryText(e))
		return
	case e.Type == workflows.EventApprovalRequested && e.Approval != nil:
		PrintApproval(w, *e.Approval)
		return
	case e.Type == workflows.EventAgentApprovalRequested && e.Approval != nil:
		fmt.Fprintf(w, "\n[a sub-agent asks]")
		PrintApproval(w, *e.Approval)
		return
	case (e.Type == workflows.EventApprovalResolved || e.Type == workflows.EventAgentApprovalResolved) && e.Approval != nil:
		note := ""
		if e.Approval.Note != "" {
			note = " (" + e.Approval.Note + ")"
		}
		fmt.Fprintf(w, "[approval %s: %s%s]\n", e.Approval.ItemID, orDefault(e.Approval.Decision, "none"), note)
		return
	}
	if e.Item == nil {
		return
	}
	it := e.Item
	if e.Type == workflows.EventTerminalInteraction {
		fmt.Fprintf(w, "[session %s ← %q]\n", it.ProcessID, e.Stdin)
		return
	}
	switch {
	case it.Type == workflows.ItemCommandExecution && e.Type == workflows.EventItemStarted:
		fmt.Fprintf(w, "\n$ %s\n", it.Command)
	case it.Type == workflows.ItemCommandExecution:
		out := strings.TrimRight(it.AggregatedOutput, "\n")
		lines := strings.Split(out, "\n")
		if len(lines) > 20 {
			lines = append(append(lines[:10:10], fmt.Sprintf("... (%d more lines)", len(lines)-20)), lines[len(lines)-10:]...)
		}
		if out != "" {
			fmt.Fprintf(w, "%s\n", strings.Join(lines, "\n"))
		}
		code := "?"
		if it.ExitCode != nil {
			code = fmt.Sprint(*it.ExitCode)
		}
		status := workflows.ShownStatus(it.Status)
		if it.Status == workflows.StatusInterrupted {
			status += " · interrupted" // the cause, beside the one status
		}
		if it.ExitCode == nil && it.ProcessID != "" && it.Status == workflows.StatusCompleted {
			// An exec_command whose process goes on as a session.
			fmt.Fprintf(w, "[running · session %s · %d ms]\n", it.ProcessID, it.DurationMs)
			return
		}
		fmt.Fprintf(w, "[%s · exit %s · %d ms]\n", status, code, it.DurationMs)
	case it.Type == workflows.ItemAgentMessage:
		fmt.Fprintf(w, "\nagent: %s\n", it.Text)
	case it.Type == workflows.ItemReasoning:
		fmt.Fprintf(w, "\nthinking: %s\n", it.Text)
	case it.Type == workflows.ItemFileChange && e.Type == workflows.EventItemCompleted:
		for _, c := range it.Changes {
			fmt.Fprintf(w, "\n%s %s\n", c.Kind, c.Path)
		}
		if it.Status != workflows.StatusCompleted {
			fmt.Fprintf(w, "\npatch %s\n", workflows.ShownStatus(it.Status))
		}
	case it.Type == workflows.ItemTodoList:
		fmt.Fprintf(w, "\nplan:\n")
		for _, t := range it.Items {
			mark := " "
			if t.Completed {
				mark = "x"
			}
			fmt.Fprintf(w, "  [%s] %s\n", mark, t.Text)
		}
	case it.Type == workflows.ItemError:
		fmt.Fprintf(w, "\nerror: %s\n", it.Message)
	case it.Type == workflows.ItemMCPToolCall:
		mcpHumanItem(w, e.Type, it)
	}
}

// finish prints how the turn ended.
// turnStarted names a later turn of the thread exec shows (the JSON
// stream has no event for it: turn.started follows).
func (p *printer) turnStarted(threadID, turnID string) {
	if !p.json {
		fmt.Fprintf(p.io.Err, "\nthread %s · %s\n", threadID, turnID)
	}
}

// finish shows a turn's end; last: its final message is exec's answer
// (stdout); another turn's was shown as its agent message.
func (p *printer) finish(r workflows.TurnResult, last bool) {
	if p.json {
		switch r.Status {
		case workflows.StatusCompleted:
			p.emit(turnCompletedEvent{Type: "turn.completed", Usage: execUsage{
				CachedInputTokens: r.Usage.CachedInputTokens, InputTokens: r.Usage.InputTokens,
				OutputTokens: r.Usage.OutputTokens, ReasoningOutputTokens: r.Usage.ReasoningTokens}})
		default:
			msg := r.Error
			if r.Status == workflows.StatusInterrupted && msg == "" {
				msg = "turn interrupted"
			}
			p.emit(turnFailedEvent{Error: errorMessage{Message: msg}, Type: "turn.failed"})
		}
		return
	}
	fmt.Fprintf(p.io.Err, "\n[turn %s · %d steps · tokens in %d (cached %d) out %d]\n",
		r.Status, r.Steps, r.Usage.InputTokens, r.Usage.CachedInputTokens, r.Usage.OutputTokens)
	if r.Status != workflows.StatusCompleted || !last {
		return
	}
	if r.FinalMessage != "" {
		fmt.Fprintf(p.io.Out, "%s\n", r.FinalMessage)
	}
}

// PrintApproval shows what waits for a decision and how to give it.
func PrintApproval(w io.Writer, a workflows.Approval) {
	fmt.Fprintf(w, "\napproval needed · thread %s · %s: %s\n", a.ThreadID, a.ItemID, a.Reason)
	if a.Command != "" {
		fmt.Fprintf(w, "  $ %s   (in %s)\n", a.Command, a.Cwd)
	}
	if a.Diff != "" {
		fmt.Fprintf(w, "%s\n", strings.TrimRight(a.Diff, "\n"))
	}
	if a.Unsandboxed {
		fmt.Fprintf(w, "  approving runs it WITHOUT the sandbox\n")
	}
	if a.Deadline != nil {
		fmt.Fprintf(w, "  without a decision by %s: %s\n", a.Deadline.Local().Format("15:04:05"), a.DefaultDecision)
	}
	fmt.Fprintf(w, "  answer: %s\n", a.Answer)
}

// mcpHumanItem prints an MCP tool call for a person.
func mcpHumanItem(w io.Writer, typ string, it *workflows.Item) {
	if typ == workflows.EventItemStarted {
		fmt.Fprintf(w, "\nmcp %s.%s %s\n", it.Server, it.Tool, oneLineText(it.Arguments, 200))
		return
	}
	if typ != workflows.EventItemCompleted {
		return
	}
	out := it.Result
	if out == "" {
		out = it.Message
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > 20 {
		lines = append(lines[:20:20], fmt.Sprintf("... (%d more lines)", len(lines)-20))
	}
	fmt.Fprintf(w, "%s\n[%s]\n", strings.Join(lines, "\n"), it.Status)
}

// oneLineText is s on one line, cut after n bytes.
func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
