package exec

import (
	"context"
	"fmt"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// backgroundStarted is the one JSON line `exec --background --json`
// prints: the thread and its turn, running with nobody attached.
type backgroundStarted struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	TurnID   string `json:"turn_id"`
	RunKind  string `json:"run_kind"`
}

// StartBackground starts a thread whose first turn runs as a background
// job (nobody attached, skills by the background kind) and returns as soon
// as the thread has taken the turn: it prints the thread's id on stdout
// (or one JSON line) and on stderr how to pick it up. With goal set, the
// thread takes the goal too and its continuation turns follow by
// themselves.
func (s *Session) StartBackground(ctx context.Context, nt threads.NewThread, req workflows.StartTurnRequest, goal *workflows.GoalSetRequest) error {
	s.init()
	req.RunKind = workflows.RunKindBackgroundJob
	resp, err := threads.Start(ctx, s.Client, nt, req)
	if err != nil {
		return turnExit(nt.ThreadID, err)
	}
	if goal != nil {
		if _, err := threads.SetGoal(ctx, s.Client, nt.ThreadID, *goal); err != nil {
			return exitf(1, "setting the goal of %s: %v", nt.ThreadID, rootCause(err))
		}
	}
	s.startedInBackground(nt.ThreadID, resp.TurnID)
	return nil
}

// ResumeBackground sends a thread a turn that runs as a background job
// and returns once the thread has taken it. A thread with a turn running
// refuses it (as `exec resume` would wait for that turn).
func (s *Session) ResumeBackground(ctx context.Context, threadID string, req workflows.StartTurnRequest) error {
	s.init()
	req.RunKind = workflows.RunKindBackgroundJob
	resp, err := threads.Reply(ctx, s.Client, threadID, req)
	if err != nil {
		return turnExit(threadID, err)
	}
	s.startedInBackground(threadID, resp.TurnID)
	return nil
}

func (s *Session) startedInBackground(threadID, turnID string) {
	if s.p.json {
		s.p.emit(backgroundStarted{Type: "thread.started", ThreadID: threadID, TurnID: turnID, RunKind: workflows.RunKindBackgroundJob})
	} else {
		fmt.Fprintln(s.IO.Out, threadID)
	}
	fmt.Fprintf(s.IO.Err, "interpreter: %s runs in the background (%s); see it with `interpreter threads show %s`, follow it with `interpreter exec resume %s`\n",
		threadID, turnID, threadID, threadID)
}

// kindSuffix ends a turn's line in `threads show` with its run kind when
// it was not a person's.
func kindSuffix(kind string) string {
	if kind == "" || kind == workflows.RunKindMain {
		return ""
	}
	return " · " + kind
}
