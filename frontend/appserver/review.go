package appserver

import (
	"encoding/json"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/workflows"
)

// review/start: Codex's review mode as a durable turn. A review is an
// ordinary turn of the thread (its model calls, its read-only commands
// such as `git diff` under the thread's sandbox, its crash safety), whose
// collaboration mode carries the review instructions
// (workflows.ReviewInstructions) and whose prompt names the target. What
// makes it a review for the client is how this server shows it
// (review_notify.go): an enteredReviewMode item first, the model's
// messages held back, and its final JSON answer rendered as the
// exitedReviewMode item's text (review_render.go).

type reviewStartParams struct {
	ThreadID string          `json:"threadId"`
	Target   json.RawMessage `json:"target"`
	Delivery *string         `json:"delivery"`
}

// reviewModeName is the review turn's mode (workflows.TurnMode.Name).
const reviewModeName = "review"

func (c *conn) reviewStart(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p reviewStartParams
	if err := decodeParams(raw, &p, "threadId", "target"); err != nil {
		return nil, err
	}
	if p.Delivery != nil && *p.Delivery != "inline" {
		// 0.171 runs reviews inline only (0.140's detached is gone from
		// its schema); a client that wants a separate thread starts one.
		return nil, invalidRequest("Invalid request: unknown variant `%s`, expected `inline`", *p.Delivery)
	}
	target, err := parseReviewTarget(p.Target)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.ThreadID) == "" {
		return nil, threadNotFound(p.ThreadID)
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	info, err := c.readThread(ctx, p.ThreadID)
	if err != nil {
		return nil, err
	}
	if info.View != nil && info.View.RunningTurn != "" {
		return nil, invalidRequest("thread %s is running turn %s; wait for it to end or interrupt it before starting a review", p.ThreadID, info.View.RunningTurn)
	}
	prompt := target.prompt(c.mergeBase(ctx, info.Config.Cwd, target.Branch))
	req := workflows.StartTurnRequest{Prompt: prompt,
		Mode: &workflows.TurnMode{Name: reviewModeName, Instructions: workflows.ReviewInstructions}}
	defer c.startingTurn(p.ThreadID)()
	resp, err := c.s.backend.StartTurn(ctx, p.ThreadID, req)
	if err != nil {
		if isRunning(err) {
			return nil, invalidRequest("thread %s is running a turn; wait for it to end or interrupt it before starting a review", p.ThreadID)
		}
		return nil, startTurnError(p.ThreadID, err)
	}
	ts := c.subscribe(p.ThreadID)
	c.watchReview(resp.TurnID, target.hint())
	f := c.newFollower(ts, resp.TurnID, []protocol.UserInput{protocol.Text(prompt)}, 0)
	turn := protocol.Turn{ID: resp.TurnID, Items: []protocol.ThreadItem{}, ItemsView: protocol.ItemsNotLoaded, Status: turnInProgress}
	return &result{value: protocol.ReviewStartResponse{Turn: turn, ReviewThreadID: p.ThreadID}, then: f.start}, nil
}
