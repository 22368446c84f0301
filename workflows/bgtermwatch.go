package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// bgWatchAll starts a watch for every open session that has none, with
// the end of its idle lifetime (set afresh when a turn used it).
func (t *thread) bgWatchAll(ctx workflow.Context, cfg BackgroundTerminalsConfig) {
	if t.bg.watching == nil {
		t.bg.watching = map[int]workflow.CancelFunc{}
	}
	now := workflow.Now(ctx)
	marks := make([]BgIdleMark, 0, len(t.st.ExecSessions))
	for _, s := range t.st.ExecSessions {
		m := BgIdleMark{ID: s.ID, Used: s.Used, Until: now.Add(cfg.IdleTimeout)}
		for _, old := range t.st.BgIdle {
			if old.ID == s.ID && old.Used == s.Used {
				m = old
			}
		}
		marks = append(marks, m)
		if t.bg.watching[s.ID] == nil {
			t.bgWatch(ctx, s, m.Until, cfg)
		}
	}
	t.st.BgIdle = marks
}

// bgWatch watches one session until its process ends, its worker is
// found gone, or the thread stops the watch.
func (t *thread) bgWatch(ctx workflow.Context, s ExecSession, until time.Time, cfg BackgroundTerminalsConfig) {
	wctx, cancel := workflow.WithCancel(ctx)
	t.bg.watching[s.ID] = cancel
	hb := t.bgHeartbeat(t.bgQuiet(ctx))
	queue := s.Queue
	if queue == "" {
		queue = t.st.Config.HostQueue
	}
	opts := workflow.ActivityOptions{
		TaskQueue:              queue,
		ScheduleToStartTimeout: t.bgPickup(),
		StartToCloseTimeout:    max(until.Sub(workflow.Now(ctx)), 0) + time.Minute,
		HeartbeatTimeout:       hb,
		WaitForCancellation:    true,
		Summary:                "background terminal " + itoa(s.ID) + ": " + oneLine(s.Command, 100),
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
	}
	in := activities.WatchSessionInput{ThreadID: t.id, SessionID: s.ID, IdleUntil: until, TailBytes: cfg.OutputBytes}
	workflow.Go(wctx, func(gctx workflow.Context) {
		var out activities.WatchSessionOutput
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(gctx, opts), acts.WatchSession, in).Get(gctx, &out)
		delete(t.bg.watching, s.ID)
		if err != nil && gctx.Err() != nil {
			return // stopped by the thread
		}
		t.bgEnded(ctx, s.ID, out, err, cfg)
	})
}

// bgEnded takes in the end of a watch: a session still listed whose
// process ended, whose idle lifetime ran out or whose worker died is
// dropped and told of, once.
func (t *thread) bgEnded(ctx workflow.Context, id int, out activities.WatchSessionOutput, err error, cfg BackgroundTerminalsConfig) {
	s, ok := t.bgSession(id)
	if !ok {
		return // dropped by the thread meanwhile
	}
	var text string
	wake := cfg.Wakeup
	switch {
	case err != nil && isTimeout(err):
		text = bgLostText(s, cfg.OutputBytes)
		t.bgRecordEnd(ctx, s, TerminalWorkerStopped, nil, s.Tail)
	case err != nil:
		workflow.GetLogger(ctx).Warn("watching a background terminal failed", "session", id, "error", err)
		return
	case out.Gone:
		// A call of the running turn reported its end, or it was closed.
		t.bgForget(id)
		return
	case out.Expired:
		text, wake = bgExpiredText(s, out, cfg.IdleTimeout), false
		t.bgRecordEnd(ctx, s, TerminalEndedIdle, nil, out.Tail)
	default:
		text = bgExitText(s, out)
		code := out.ExitCode
		t.bgRecordEnd(ctx, s, TerminalExited, &code, out.Tail)
	}
	t.bgForget(id)
	t.bgTell(ctx, id, text, wake)
}

// bgForget drops a session that ended; a running turn, which holds its
// own list, is told by [bgTell], and the list it hands back is cut then.
func (t *thread) bgForget(id int) {
	t.bgDrop(id)
	if t.st.Running != "" {
		t.st.BgEnded = append(t.st.BgEnded, id)
	}
}

func (t *thread) bgSession(id int) (ExecSession, bool) {
	for _, s := range t.st.ExecSessions {
		if s.ID == id {
			return s, true
		}
	}
	return ExecSession{}, false
}

// bgTell gives the model a background terminal's notice: the running
// turn's next request takes it; with none running it wakes the thread
// (wake) or waits for the next turn. A turn that closes before the
// notice reaches it hands it back unsent, and it wakes the thread then
// ([thread.bgTakeTurnEnd]).
func (t *thread) bgTell(ctx workflow.Context, id int, text string, wake bool) {
	if t.st.Running == "" {
		if wake {
			t.st.BgNotices = append(t.st.BgNotices, text)
		} else {
			t.st.Unsent = append(t.st.Unsent, harness.Entry{Kind: harness.KindUser, Text: text})
		}
		return
	}
	missed := func() {
		if wake {
			t.st.BgNotices = append(t.st.BgNotices, text)
		} else {
			t.st.LateNotices = append(t.st.LateNotices, text)
		}
	}
	turnID, child := t.st.Running, t.child
	if child == nil {
		missed() // the turn has not started: it is told after it
		return
	}
	t.st.BgInFlight = append(t.st.BgInFlight, text)
	workflow.Go(ctx, func(ctx workflow.Context) {
		if child.GetChildWorkflowExecution().Get(ctx, nil) == nil &&
			workflow.SignalExternalWorkflow(ctx, turnID, "", SignalSessionEnded, SessionEnded{ID: id, Text: text}).Get(ctx, nil) == nil {
			return
		}
		t.bgUnflight(text)
		missed()
	})
}

func (t *thread) bgUnflight(text string) {
	for i, n := range t.st.BgInFlight {
		if n == text {
			t.st.BgInFlight = append(t.st.BgInFlight[:i:i], t.st.BgInFlight[i+1:]...)
			return
		}
	}
}
