package exec

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// PrintGoal writes a thread's goal for a person (`threads show`,
// `goal show`).
func PrintGoal(w io.Writer, g *workflows.Goal) {
	fmt.Fprintf(w, "goal: %s\n", g.Objective)
	fmt.Fprintf(w, "  status: %s", g.Status)
	if g.Reason != "" {
		fmt.Fprintf(w, " (%s)", g.Reason)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  tokens: %d", g.TokensUsed)
	if g.TokenBudget != nil {
		fmt.Fprintf(w, " of %d", *g.TokenBudget)
	}
	fmt.Fprintf(w, " · time in turns: %s · continuation turns: %d\n", time.Duration(g.TimeUsedSeconds)*time.Second, g.Continuations)
	fmt.Fprintf(w, "  updated: %s\n", g.UpdatedAt.UTC().Format(time.RFC3339))
}

// StartGoal starts a thread with its first turn and a goal, and shows
// every turn the goal runs until it is no longer active: the first turn,
// then the continuation turns the thread starts by itself. It exits 0
// when the goal ends complete, 1 otherwise (blocked, paused, limited, or
// cleared). Killing exec leaves the goal running: it belongs to the
// thread.
func (s *Session) StartGoal(ctx context.Context, nt threads.NewThread, req workflows.StartTurnRequest, objective string, tokenBudget int64, announce func()) error {
	s.init()
	if req.Prompt == "" {
		req.Prompt = objective
	}
	resp, err := threads.Start(ctx, s.Client, nt, req)
	if err != nil {
		return turnExit(nt.ThreadID, err)
	}
	s.p.threadStarted(nt.ThreadID, resp.TurnID)
	announce()
	set := workflows.GoalSetRequest{Objective: objective, Status: workflows.GoalActive, Origin: workflows.GoalByUser}
	if tokenBudget > 0 {
		set.TokenBudget = &tokenBudget
	}
	if _, err := threads.SetGoal(ctx, s.Client, nt.ThreadID, set); err != nil {
		return exitf(1, "setting the goal of %s: %v", nt.ThreadID, rootCause(err))
	}
	turnID := resp.TurnID
	var last workflows.TurnResult
	for turnID != "" {
		if last, err = s.watch(ctx, nt.ThreadID, turnID, false); err != nil {
			return err
		}
		if turnID, err = s.nextGoalTurn(ctx, nt.ThreadID, turnID); err != nil {
			return err
		}
	}
	g, err := threads.ReadGoal(ctx, s.Client, nt.ThreadID)
	if err != nil {
		return exitf(1, "reading the goal of %s: %v", nt.ThreadID, rootCause(err))
	}
	if !s.JSON && last.FinalMessage != "" {
		fmt.Fprintf(s.IO.Out, "%s\n", last.FinalMessage)
	}
	if s.LastMessage != "" {
		if err := writeLastMessage(s.LastMessage, last.FinalMessage); err != nil {
			return err
		}
	}
	if g == nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("the goal of %s was cleared", nt.ThreadID)}
	}
	if !s.JSON {
		PrintGoal(s.IO.Err, g)
	}
	if g.Status != workflows.GoalComplete {
		return &ExitError{Code: 1, Err: fmt.Errorf("goal %s: %s", g.Status, orDefault(g.Reason, "no reason given"))}
	}
	return nil
}

// nextGoalTurn waits until the thread has taken in the end of turn done,
// then names the turn it ran next ("" when the goal no longer runs). A
// next turn that has already ended is named too: it is shown from its
// log (a fast turn may end between two reads).
func (s *Session) nextGoalTurn(ctx context.Context, threadID, done string) (string, error) {
	for {
		v, err := threads.Read(ctx, s.Client, threadID)
		if err != nil {
			return "", exitf(1, "reading thread %s: %v", threadID, rootCause(err))
		}
		if next, ok := turnAfter(v.Turns, done); ok {
			return next, nil
		}
		switch {
		case v.RunningTurn != "" && v.RunningTurn != done:
			return v.RunningTurn, nil
		case v.RunningTurn == "" && (v.Goal == nil || v.Goal.Status != workflows.GoalActive):
			return "", nil
		}
		// The thread is between two turns of the goal (or has not yet
		// taken in the last one's end): a moment, then look again.
		if err := sleepCtx(ctx, 20*time.Millisecond); err != nil {
			return "", err
		}
	}
}

// turnAfter names the turn the thread took in after done, if any.
func turnAfter(turns []workflows.TurnResult, done string) (string, bool) {
	for i := len(turns) - 2; i >= 0; i-- {
		if turns[i].TurnID == done {
			return turns[i+1].TurnID, true
		}
	}
	return "", false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
