package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// resumer is `exec resume`: it follows the turn the thread runs (one a
// killed exec left behind, say) to its end, asking its pending approvals
// as exec asks its own, then runs the new prompt as the next turn, as
// codex-reply does.
type resumer struct {
	s        *Session
	threadID string
	req      workflows.StartTurnRequest // Prompt "" only follows
	announce func()

	shown    bool   // thread.started is out
	followed string // the last turn followed
	outcome  error  // its exit, when no prompt follows it
}

func (r *resumer) run(ctx context.Context) error {
	for {
		v, err := threads.Read(ctx, r.s.Client, r.threadID)
		if err != nil {
			return turnExit(r.threadID, err)
		}
		if v.RunningTurn != "" && v.RunningTurn != r.followed {
			if err := r.followRunning(ctx, v.RunningTurn); err != nil {
				return err
			}
			continue
		}
		if r.req.Prompt == "" && r.followed == "" && IsTerminal(r.s.IO.In) {
			// Nothing runs: the prompt is what the user types now.
			prompt, err := ReadPrompt(r.s.IO.In, r.s.IO.Err)
			if err != nil {
				return err
			}
			r.req.Prompt = prompt
		}
		if r.req.Prompt == "" && r.followed != "" {
			return r.outcome // only following was asked for
		}
		if err := CheckPrompt(r.req.Prompt); err != nil {
			return err
		}
		resp, err := threads.Reply(ctx, r.s.Client, r.threadID, r.req)
		if err != nil && errors.Is(err, threads.ErrTurnRunning) {
			continue // another client's turn came first: follow it too
		}
		if err != nil {
			return turnExit(r.threadID, err)
		}
		r.show(resp.TurnID)
		return r.s.follow(ctx, r.threadID, resp.TurnID)
	}
}

// show names the thread (once) and the turn about to be followed.
func (r *resumer) show(turnID string) {
	if r.shown {
		r.s.p.turnStarted(r.threadID, turnID)
		return
	}
	r.shown = true
	r.s.p.threadStarted(r.threadID, turnID)
	r.announce()
}

// followRunning shows a turn this exec did not start, from its first
// event, until it ends.
func (r *resumer) followRunning(ctx context.Context, turnID string) error {
	r.show(turnID)
	if !r.s.p.json {
		fmt.Fprintf(r.s.IO.Err, "interpreter: the thread is running %s: following it to its end%s\n", turnID,
			map[bool]string{true: ", then your prompt", false: ""}[r.req.Prompt != ""])
	}
	r.followed = turnID
	last := r.req.Prompt == ""
	res, err := r.s.watch(ctx, r.threadID, turnID, last)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		// Ctrl-C interrupted the followed turn: the prompt is not sent.
		return exitf(1, "turn %s: %s; the prompt was not sent", res.Status, turnID)
	}
	r.outcome = nil
	if res.Status != workflows.StatusCompleted {
		r.outcome = &ExitError{Code: 1, Err: fmt.Errorf("turn %s: %s", res.Status, orDefault(res.Error, "no error message"))}
	}
	if last && r.s.LastMessage != "" {
		if err := writeLastMessage(r.s.LastMessage, res.FinalMessage); err != nil {
			return err
		}
	}
	return nil
}
