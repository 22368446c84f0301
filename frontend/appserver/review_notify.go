package appserver

import (
	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// reviewTurn is what a connection keeps about a review turn it follows,
// to show the turn as Codex shows a review.
type reviewTurn struct {
	hint string
	// answer is the model's latest message: the review once the turn
	// ends.
	answer  string
	entered bool
	exited  bool
}

// watchReview marks a turn of this connection as a review of hint.
func (c *conn) watchReview(turnID, hint string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reviews == nil {
		c.reviews = map[string]*reviewTurn{}
	}
	c.reviews[turnID] = &reviewTurn{hint: hint}
}

// reviewNotify shows a review turn's notifications as Codex does, and
// reports whether it took n: an enteredReviewMode item after
// turn/started; the model's messages held back (the last one is the
// review, in JSON); before the turn's closing notifications, an
// exitedReviewMode item and an agent message with the rendered review.
// Other turns' notifications are left to notify.
func (c *conn) reviewNotify(n notification) bool {
	turnID := reviewTurnOf(n)
	if turnID == "" {
		return false
	}
	c.mu.Lock()
	r := c.reviews[turnID]
	c.mu.Unlock()
	if r == nil {
		return false
	}
	switch p := n.Params.(type) {
	case protocol.TurnStarted:
		c.sendReview(n)
		c.enterReview(p.ThreadID, turnID, r)
	case protocol.ItemStarted:
		if p.Item.ItemType() != protocol.TypeAgentMessage {
			c.enterReview(p.ThreadID, turnID, r)
			c.sendReview(n)
		}
	case protocol.ItemCompleted:
		if m, ok := p.Item.(protocol.AgentMessageItem); ok {
			if m.Text != "" {
				r.answer = m.Text
			}
			return true
		}
		c.enterReview(p.ThreadID, turnID, r)
		c.sendReview(n)
	case protocol.ItemDelta:
		if n.Method != protocol.MethodAgentMessageDelta {
			c.sendReview(n)
		}
	case protocol.ThreadTokenUsageUpdated:
		c.exitReview(p.ThreadID, turnID, r)
		c.sendReview(n)
	case protocol.TurnCompleted:
		c.exitReview(p.ThreadID, turnID, r)
		// The summary is the rendered review, not the model's JSON.
		p.Turn.Items, p.Turn.ItemsView = []protocol.ThreadItem{}, protocol.ItemsNotLoaded
		if text := renderReview(r.answer); text != "" {
			p.Turn.Items, p.Turn.ItemsView = []protocol.ThreadItem{protocol.AgentMessageItem{ID: turnID + "-review-msg", Text: text}}, protocol.ItemsSummary
		}
		c.sendReview(notice(p))
		c.mu.Lock()
		delete(c.reviews, turnID)
		c.mu.Unlock()
	default:
		c.sendReview(n)
	}
	return true
}

// reviewTurnOf is the turn a notification is about, for the kinds a
// review changes ("" for the others).
func reviewTurnOf(n notification) string {
	switch p := n.Params.(type) {
	case protocol.TurnStarted:
		return p.Turn.ID
	case protocol.TurnCompleted:
		return p.Turn.ID
	case protocol.ItemStarted:
		return p.TurnID
	case protocol.ItemCompleted:
		return p.TurnID
	case protocol.ItemDelta:
		return p.TurnID
	case protocol.ThreadTokenUsageUpdated:
		return p.TurnID
	}
	return ""
}

func (c *conn) enterReview(threadID, turnID string, r *reviewTurn) {
	if r.entered {
		return
	}
	r.entered = true
	item := protocol.EnteredReviewModeItem{ID: turnID + "-review-entered", Review: r.hint}
	c.sendItem(threadID, turnID, item)
}

// exitReview closes the review with its text: Codex's clients show the
// exitedReviewMode item's, and keep the agent message in the transcript.
func (c *conn) exitReview(threadID, turnID string, r *reviewTurn) {
	if r.exited {
		return
	}
	c.enterReview(threadID, turnID, r)
	r.exited = true
	text := renderReview(r.answer)
	c.sendItem(threadID, turnID, protocol.ExitedReviewModeItem{ID: turnID + "-review-exited", Review: text})
	if text != "" {
		c.sendItem(threadID, turnID, protocol.AgentMessageItem{ID: turnID + "-review-msg", Text: text})
	}
}

func (c *conn) sendItem(threadID, turnID string, item protocol.ThreadItem) {
	now := c.nowMs()
	c.sendReview(notice(protocol.ItemStarted{ThreadID: threadID, TurnID: turnID, Item: item, StartedAtMs: now}))
	c.sendReview(notice(protocol.ItemCompleted{ThreadID: threadID, TurnID: turnID, Item: item, CompletedAtMs: now}))
}

// sendReview writes a notification as notify does, past the review hook.
func (c *conn) sendReview(n notification) {
	c.mu.Lock()
	skip := c.optOut[n.Method]
	c.mu.Unlock()
	if skip {
		return
	}
	if err := c.out.write(n); err != nil {
		c.logf("writing %s: %v", n.Method, err)
	}
}
