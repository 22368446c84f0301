package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// Dynamic tools are declared by a front end (app-server dynamicTools) and
// run by it: the turn records the call, the front end asks its client and
// delivers the answer with [UpdateAnswerDynamic]. The wait is durable and
// bounded, so a front end that died or a client that never answers cannot
// hold a turn forever.
const (
	// EventDynamicRequested: a dynamic tool call waits for the front
	// end's answer (the event's Item carries the [DynamicCall]).
	EventDynamicRequested = "dynamic_tool.requested"
	// ItemDynamicToolCall is a call of a dynamic tool; Item.Dynamic holds
	// the call and, once completed, its result.
	ItemDynamicToolCall = "dynamic_tool_call"
	// QueryDynamicCalls returns a turn's pending dynamic tool calls
	// ([]DynamicCall).
	QueryDynamicCalls = "dynamic_tool.pending"
	// UpdateAnswerDynamic delivers the answer to a pending dynamic tool
	// call ([DynamicAnswer]); sent to the turn workflow. An answer for a
	// call that is not pending is refused and changes nothing.
	UpdateAnswerDynamic = "dynamic_tool.answer"

	// DefaultDynamicToolTimeout is how long a dynamic tool call waits
	// when the thread sets no dynamic_tool_timeout.
	DefaultDynamicToolTimeout = 10 * time.Minute
)

// DynamicCall is a dynamic tool call: what the model asked for and, once
// resolved, what came back.
type DynamicCall struct {
	ThreadID string `json:"thread_id"`
	TurnID   string `json:"turn_id"`
	ItemID   string `json:"item_id"`
	CallID   string `json:"call_id"`
	// Tool is the tool's name as declared; Namespace its namespace, if
	// any.
	Tool      string `json:"tool"`
	Namespace string `json:"namespace,omitempty"`
	// Arguments are the model's raw JSON arguments.
	Arguments   string     `json:"arguments"`
	RequestedAt time.Time  `json:"requested_at"`
	Deadline    *time.Time `json:"deadline,omitempty"`
	// Resolved is set once the call has an outcome: Success and Content
	// from the front end's answer, or Error when it failed without one
	// (timeout, interruption, a client error).
	Resolved   bool             `json:"resolved,omitempty"`
	Success    bool             `json:"success,omitempty"`
	Content    []DynamicContent `json:"content,omitempty"`
	Error      string           `json:"error,omitempty"`
	DurationMs int64            `json:"duration_ms,omitempty"`
}

// DynamicContent is one part of a dynamic tool's output: text (Type
// "inputText") or an image URL ("inputImage").
type DynamicContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

// DynamicAnswer is the payload of [UpdateAnswerDynamic]. ThreadID and
// ItemID must name the pending call exactly.
type DynamicAnswer struct {
	ThreadID string           `json:"thread_id"`
	ItemID   string           `json:"item_id"`
	Success  bool             `json:"success"`
	Content  []DynamicContent `json:"content,omitempty"`
	// Error reports that the client could not run the tool (an error
	// response); the model reads it as a failed tool result.
	Error string `json:"error,omitempty"`
}

// registerDynamic installs the pending-calls query and the answer update.
func (t *turn) registerDynamic(ctx workflow.Context) error {
	t.answers = map[string]DynamicAnswer{}
	if err := workflow.SetQueryHandler(ctx, QueryDynamicCalls, func() ([]DynamicCall, error) {
		return t.st.DynamicCalls, nil
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateAnswerDynamic,
		func(ctx workflow.Context, a DynamicAnswer) error {
			t.answers[a.ItemID] = a
			return nil
		},
		workflow.UpdateHandlerOptions{Validator: t.validateDynamicAnswer})
}

func (t *turn) validateDynamicAnswer(ctx workflow.Context, a DynamicAnswer) error {
	if a.ThreadID != t.in.ThreadID {
		return fmt.Errorf("answer refused: it names thread %q, but this turn belongs to thread %s", a.ThreadID, t.in.ThreadID)
	}
	if err := CheckToolResult(a); err != nil {
		return err
	}
	var pending []string
	for _, d := range t.st.DynamicCalls {
		if d.ItemID == a.ItemID {
			if _, ok := t.answers[a.ItemID]; ok {
				return fmt.Errorf("answer refused: dynamic tool call %s was already answered", a.ItemID)
			}
			return nil
		}
		pending = append(pending, d.ItemID)
	}
	if len(pending) == 0 {
		return fmt.Errorf("answer refused: no dynamic tool call is pending on thread %s (item %s is not waiting)", t.in.ThreadID, a.ItemID)
	}
	return fmt.Errorf("answer refused: item %s of thread %s is not waiting for an answer (pending: %s)",
		a.ItemID, t.in.ThreadID, strings.Join(pending, ", "))
}

func (t *turn) dynamicTimeout() time.Duration {
	if d := t.in.Config.DynamicToolTimeout; d > 0 {
		return d
	}
	return DefaultDynamicToolTimeout
}

// runDynamic asks the front end that declared a dynamic tool to run it,
// and waits (durably, bounded by the dynamic tool timeout) for its answer.
// Whatever goes wrong becomes a failed tool result the model reads.
func (t *turn) runDynamic(ctx workflow.Context, c activities.DecodedCall, x harness.ExternalTool) harness.Entry {
	reply := harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name}
	tool := x.Tool
	if tool == "" {
		tool = x.Name
	}
	args := c.Inv.Arguments
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	it := t.newItem(ItemDynamicToolCall)
	it.Status = StatusInProgress
	timeout := t.dynamicTimeout()
	now := workflow.Now(ctx)
	deadline := now.Add(timeout)
	d := DynamicCall{ThreadID: t.in.ThreadID, TurnID: t.in.TurnID, ItemID: it.ID, CallID: c.Call.CallID,
		Tool: tool, Namespace: x.Server, Arguments: args, RequestedAt: now, Deadline: &deadline}
	call := d
	it.Dynamic = &call
	t.st.DynamicCalls = append(t.st.DynamicCalls, d)
	t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})
	t.log.add(Event{Type: EventDynamicRequested, Item: copyItem(it)})

	answered := func() bool { _, ok := t.answers[it.ID]; return ok }
	t.waiting++
	ok, err := awaitNamed(ctx, timeout, oneLine("wait for client tool · "+tool, 120), answered)
	t.waiting--
	ans, got := t.answers[it.ID]
	delete(t.answers, it.ID)
	for i, p := range t.st.DynamicCalls {
		if p.ItemID == it.ID {
			t.st.DynamicCalls = append(t.st.DynamicCalls[:i:i], t.st.DynamicCalls[i+1:]...)
			break
		}
	}
	d.Resolved = true
	switch {
	case got:
		d.Success, d.Content, d.Error = ans.Success && ans.Error == "", ans.Content, ans.Error
	case err == nil && !ok:
		d.Error = fmt.Sprintf("no answer from the client within %s", timeout)
	case err != nil && !errors.Is(err, workflow.ErrCanceled) && ctx.Err() == nil:
		d.Error = err.Error()
	default:
		d.Error = "the turn was interrupted while the tool waited for the client"
	}
	d.DurationMs = workflow.Now(ctx).Sub(now).Milliseconds()
	done := d
	it.Dynamic = &done
	it.Status = StatusCompleted
	if !d.Success {
		it.Status = StatusFailed
	}
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	reply.Text, reply.Error = dynamicOutput(d), !d.Success
	return reply
}

// CheckToolResult refuses a dynamic tool's answer whose text is over
// [MaxToolResultBytes] (front ends cut it first: [TruncateDynamic]).
func CheckToolResult(a DynamicAnswer) error {
	n := len(a.Error)
	for _, c := range a.Content {
		n += len(c.Text) + len(c.ImageURL)
	}
	if n > MaxToolResultBytes {
		return fmt.Errorf("answer refused: the tool result holds %d bytes of text, more than %d; cut it", n, MaxToolResultBytes)
	}
	return nil
}

// TruncateDynamic cuts a dynamic tool's answer to [MaxToolResultBytes]
// of text for the model, with notes: text is cut, an image that does not
// fit is named instead of sent, parts past the budget are counted.
func TruncateDynamic(a DynamicAnswer) DynamicAnswer {
	const note = 96 // room for one note
	left := MaxToolResultBytes - note
	a.Error = TruncateText(a.Error, left/4)
	left -= len(a.Error)
	out := make([]DynamicContent, 0, len(a.Content))
	dropped := 0
	for _, c := range a.Content {
		switch size := len(c.Text) + len(c.ImageURL); {
		case size <= left:
		case left < note:
			dropped++
			continue
		case c.ImageURL != "":
			c = DynamicContent{Type: "inputText", Text: fmt.Sprintf("[an image of %d bytes was left out: the tool result was too long]", len(c.ImageURL))}
		default:
			c.Text = TruncateText(c.Text, left)
		}
		left -= len(c.Text) + len(c.ImageURL)
		out = append(out, c)
	}
	if dropped > 0 {
		out = append(out, DynamicContent{Type: "inputText", Text: fmt.Sprintf("[%d more parts left out: the tool result was too long]", dropped)})
	}
	a.Content = out
	return a
}

// dynamicOutput is what the model reads of a dynamic tool's result.
func dynamicOutput(d DynamicCall) string {
	var parts []string
	for _, c := range d.Content {
		switch c.Type {
		case "inputImage":
			parts = append(parts, "[image: "+c.ImageURL+"]")
		default:
			parts = append(parts, c.Text)
		}
	}
	out := strings.Join(parts, "\n")
	if d.Success {
		return out
	}
	msg := "error: tool " + d.Tool + " failed"
	if d.Error != "" {
		msg += ": " + d.Error
	}
	if out != "" {
		msg += "\n" + out
	}
	return msg
}
