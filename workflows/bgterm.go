package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/harness"
)

// Background terminals: an exec_command session still running when its
// turn ends stays open ([ExecSession] in the thread's carried state);
// later turns' write_stdin still reach it. Between turns, and while a
// turn runs for the sessions of the turns before it, the thread watches
// each one with a host activity on the queue of the worker process that
// holds it ([activities.Activities.WatchSession]). When its process
// exits, the thread learns it once and tells the model: in the running
// turn's next model request, or in a turn of its own when the thread is
// idle (the wake-up; [features] background_terminal_wakeup). A watch
// whose worker died times out: the session is reported ended with it,
// once. Sessions past the thread's bound are closed, and one idle past
// its lifetime is ended.

// bgtermChange is the change id of the background terminals' version
// marker: every command they add to a thread's history comes after it.
const bgtermChange = "background-terminals"

// BackgroundTerminalsConfig bounds a thread's background terminals
// ([background_terminals] in config.toml).
type BackgroundTerminalsConfig struct {
	// Wakeup starts a turn when a background terminal's process exits
	// while the thread is idle (else the next turn is told).
	Wakeup bool `json:"wakeup,omitempty"`
	// MaxPerThread bounds the sessions a thread keeps open after a turn;
	// the least recently used beyond it are closed (0: default).
	MaxPerThread int `json:"max_per_thread,omitempty"`
	// IdleTimeout ends a session that no call has used for this long (0:
	// default).
	IdleTimeout time.Duration `json:"idle_timeout,omitempty"`
	// OutputBytes bounds the last output a wake-up shows (0: default).
	OutputBytes int `json:"output_bytes,omitempty"`
}

// Defaults and limits of [BackgroundTerminalsConfig].
const (
	DefaultBgMaxPerThread = 16
	DefaultBgIdleTimeout  = time.Hour
	DefaultBgOutputBytes  = 4 << 10
	MaxBgOutputBytes      = 16 << 10
)

func (c BackgroundTerminalsConfig) withDefaults() BackgroundTerminalsConfig {
	if c.MaxPerThread <= 0 {
		c.MaxPerThread = DefaultBgMaxPerThread
	}
	c.MaxPerThread = min(c.MaxPerThread, maxExecSessions)
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultBgIdleTimeout
	}
	if c.OutputBytes <= 0 {
		c.OutputBytes = DefaultBgOutputBytes
	}
	c.OutputBytes = min(c.OutputBytes, MaxBgOutputBytes)
	return c
}

// BgIdleMark is when a watched session's idle lifetime ends, as of its
// use counter then (a later use starts it afresh).
type BgIdleMark struct {
	ID    int       `json:"id"`
	Used  int       `json:"used"`
	Until time.Time `json:"until"`
}

// bgRuntime is what a thread's run knows of its watches (not carried:
// a new run starts them again).
type bgRuntime struct {
	watching map[int]workflow.CancelFunc
}

func (t *thread) bgConfig() (BackgroundTerminalsConfig, bool) {
	if t.st.Config.BackgroundTerminals == nil {
		return BackgroundTerminalsConfig{}, false
	}
	return t.st.Config.BackgroundTerminals.withDefaults(), true
}

// bgOn records the version marker (once per run) and says whether this
// history runs the background-terminal code.
func (t *thread) bgOn(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, bgtermChange, workflow.DefaultVersion, 1) >= 1
}

// bgSync runs at every pass of the thread's loop, between turns: it
// takes in what the last turn left (sessions that ended meanwhile,
// notices it did not send), applies the bounds and watches the open
// sessions.
func (t *thread) bgSync(ctx workflow.Context) {
	cfg, ok := t.bgConfig()
	if !ok || t.st.Running != "" || t.archived {
		return
	}
	if len(t.st.ExecSessions)+len(t.st.BgInFlight)+len(t.st.BgEnded) == 0 || !t.bgOn(ctx) {
		return
	}
	t.bgTakeTurnEnd(cfg)
	t.bgBound(ctx, cfg)
	t.bgWatchAll(ctx, cfg)
}

// bgTakeTurnEnd drops the sessions that ended while the last turn ran
// from the list it handed back, and makes the notices it was passed but
// never sent (they came after its last model call) wake the thread.
func (t *thread) bgTakeTurnEnd(cfg BackgroundTerminalsConfig) {
	for _, id := range t.st.BgEnded {
		t.bgDrop(id)
	}
	t.st.BgEnded = nil
	for _, n := range t.st.BgInFlight {
		for i, e := range t.st.Unsent {
			if e.Kind == harness.KindUser && e.Text == n {
				if cfg.Wakeup {
					t.st.Unsent = append(t.st.Unsent[:i:i], t.st.Unsent[i+1:]...)
					t.st.BgNotices = append(t.st.BgNotices, n)
				}
				break
			}
		}
	}
	t.st.BgInFlight = nil
}

// bgDue tells whether a background terminal's end should start a turn.
func (t *thread) bgDue() bool {
	return len(t.st.BgNotices) > 0 && t.st.Running == "" && !t.archived && !t.compacting
}

// bgWake hands the pending ends to the turn about to start, or queues a
// turn of their own (the wake-up) when none is queued.
func (t *thread) bgWake(ctx workflow.Context) {
	if len(t.st.BgNotices) == 0 || t.archived {
		return
	}
	notices := t.st.BgNotices
	t.st.BgNotices = nil
	if len(t.st.Queue) == 0 {
		n := t.st.NextTurn
		t.st.NextTurn++
		t.st.Queue = append(t.st.Queue, QueuedTurn{TurnID: TurnWorkflowID(t.id, n), Number: n,
			Request: StartTurnRequest{Prompt: notices[0]}})
		notices = notices[1:]
	}
	for _, n := range notices {
		t.st.Unsent = append(t.st.Unsent, harness.Entry{Kind: harness.KindUser, Text: n})
	}
}

// bgBound closes the least recently used sessions beyond the thread's
// bound, and tells the next turn.
func (t *thread) bgBound(ctx workflow.Context, cfg BackgroundTerminalsConfig) {
	for len(t.st.ExecSessions) > cfg.MaxPerThread {
		old := 0
		for i, s := range t.st.ExecSessions {
			if s.Used < t.st.ExecSessions[old].Used {
				old = i
			}
		}
		s := t.st.ExecSessions[old]
		t.bgClose(ctx, s)
		t.st.Unsent = append(t.st.Unsent, harness.Entry{Kind: harness.KindUser,
			Text: bgClosedText(s, cfg.MaxPerThread)})
	}
}

// bgClose ends a session the thread drops: its watch stops (it reports
// nothing), its process is killed.
func (t *thread) bgClose(ctx workflow.Context, s ExecSession) {
	t.bgDrop(s.ID)
	if cancel := t.bg.watching[s.ID]; cancel != nil {
		cancel()
	}
	closeSessions(ctx, t.id, []ExecSession{s}, t.bgPickup(), t.st.Config.HostQueue)
}

// bgDrop removes a session from the thread's list.
func (t *thread) bgDrop(id int) bool {
	for i, s := range t.st.ExecSessions {
		if s.ID == id {
			t.st.ExecSessions = append(t.st.ExecSessions[:i:i], t.st.ExecSessions[i+1:]...)
			return true
		}
	}
	return false
}

// bgStop ends the run's watches and waits for them (before the thread
// continues as new: the next run starts them again); an end they report
// meanwhile is kept. Quiet watches are told directly ([thread.bgStopWatch]).
func (t *thread) bgStop(ctx workflow.Context) {
	if len(t.bg.watching) == 0 {
		return
	}
	quiet := t.bgQuiet(ctx)
	var stops []workflow.Future
	for _, id := range workflow.DeterministicKeys(t.bg.watching) {
		t.bg.watching[id]()
		if quiet {
			stops = append(stops, t.bgStopWatch(ctx, id))
		}
	}
	_ = workflow.Await(ctx, func() bool { return len(t.bg.watching) == 0 })
	for _, f := range stops {
		_ = f.Get(ctx, nil)
	}
}

func (t *thread) bgPickup() time.Duration {
	if hb := t.st.Config.ExecHeartbeat; hb > 0 {
		return max(hb, time.Second)
	}
	return 5 * time.Second
}
