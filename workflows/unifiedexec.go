package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// Unified exec: exec_command starts a command that may outlive the call
// (a session), write_stdin talks to it. A session is a process held by
// one worker process, so each call is an activity that runs once: the
// first on the workspace host's queue, the later ones on the queue only
// that worker process polls ([activities.SessionOutput.Queue]). When that
// process is gone nobody takes the call, it times out before it starts,
// and the model is told the session ended; the command is never run
// again. The thread keeps the open sessions ([ExecSession]) across turns.

// Limits, as Codex's where it has them.
const (
	maxExecSessions    = 64 // open sessions per thread; the oldest is closed first
	execYieldDefault   = 10_000
	writeYieldDefault  = 250
	pollYieldDefault   = 5_000
	minYieldMs         = 250
	maxYieldMs         = 30_000
	minPollYieldMs     = 5_000
	maxPollYieldMs     = 300_000
	defaultMaxTokens   = 10_000
	maxOutputTokens    = 32_768 // ours: about 128 KB of history per call
	sessionTailInState = 1 << 10
	maxLoggedStdin     = 4 << 10
)

// ExecSession is an open session as the thread records it.
type ExecSession struct {
	ID      int    `json:"id"`
	Command string `json:"command"`
	Cwd     string `json:"cwd,omitempty"`
	// Queue is the task queue of the worker process holding it.
	Queue string `json:"queue"`
	// CallID is the exec_command call that started it, ItemID its item.
	CallID string `json:"call_id"`
	ItemID string `json:"item_id,omitempty"`
	TTY    bool   `json:"tty,omitempty"`
	// Tail is its last output (bounded), for the report of its end.
	Tail string `json:"tail,omitempty"`
	// Used orders sessions by last use (a counter, not a clock).
	Used int `json:"used"`
	// StartedMs is when its process started (workflow time, Unix ms), for
	// the duration reported when it ends.
	StartedMs int64 `json:"started_ms,omitempty"`
}

// loginCommand is the argv that runs script in shell, as a login shell
// when login is set. The host runs a login shell from the snapshot of its
// profile (activities/shellsnap), so `login` costs no profile run.
func loginCommand(shell, script string, login bool) []string {
	if shell == "" {
		shell = "bash"
	}
	if login {
		return []string{shell, "-lc", script}
	}
	return []string{shell, "-c", script}
}

// clampMs keeps a requested wait within [lo, hi] (def when not given) and
// says so when it moved it.
func clampMs(req *int64, def, lo, hi int64) (int64, string) {
	if req == nil {
		return def, ""
	}
	v := min(max(*req, lo), hi)
	if v != *req {
		return v, fmt.Sprintf("Note: yield_time_ms %d is outside %d-%d ms; used %d ms.\n", *req, lo, hi, v)
	}
	return v, ""
}

func clampTokens(req *int64) (int, string) {
	switch {
	case req == nil:
		return defaultMaxTokens, ""
	case *req <= 0:
		return defaultMaxTokens, fmt.Sprintf("Note: max_output_tokens %d is not positive; used %d.\n", *req, defaultMaxTokens)
	case *req > maxOutputTokens:
		return maxOutputTokens, fmt.Sprintf("Note: max_output_tokens %d is above the limit; used %d.\n", *req, maxOutputTokens)
	}
	return int(*req), ""
}

// runExecCommand starts a session: it is judged by the approval policy as
// a shell command would be, then runs once on the workspace host.
func (t *turn) runExecCommand(ctx workflow.Context, c activities.DecodedCall) string {
	inv := c.Inv
	argv := loginCommand(inv.Shell, inv.Script, inv.Login == nil || *inv.Login)
	it := t.newItem(ItemCommandExecution)
	it.Command, it.Cwd, it.Status, it.CallID = commandString(argv), t.workdir(inv.Workdir), StatusInProgress, c.Call.CallID
	v, msg, ok := t.gate(ctx, it, argv, inv)
	if !ok {
		return msg
	}
	yield, notes := clampMs(inv.YieldMs, execYieldDefault, minYieldMs, maxYieldMs)
	tokens, note := clampTokens(inv.MaxTokens)
	notes += note + t.makeRoomForSession(ctx)
	id := t.nextSessionID()
	it.ProcessID = itoa(id)
	t.log.add(Event{Type: EventItemStarted, Item: copyItem(it)})
	in := activities.ExecCommandInput{Exec: t.execInput(c.Call.CallID, argv, it.Cwd, v.Unsandboxed),
		SessionID: id, TTY: inv.TTY, YieldMs: yield, MaxTokens: tokens}
	var out activities.SessionOutput
	quiet := t.quietTools(ctx)
	opts := t.sessionOpts(t.in.Config.HostQueue, yield, 0, "exec_command: "+oneLine(it.Command, 110), t.toolHeartbeat(quiet))
	var err error
	handled := false
	if t.execCommandLocally(ctx) {
		handled, err = t.execCommandHere(ctx, opts, &in, it.ID+"/"+c.Call.CallID, quiet, &out)
	}
	if !handled {
		err = t.onHostRun(ctx, opts, func(o workflow.ActivityOptions) error {
			f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), acts.ExecCommand, in)
			return t.awaitTool(ctx, quiet, f, c.Call.CallID, o.TaskQueue, &out)
		})
	}
	switch {
	case err != nil && ctx.Err() != nil:
		it.Status = StatusInterrupted
		var shown string
		it.DurationMs, shown = sessionInterrupted(err)
		it.AggregatedOutput = joinNote(shown, "[interrupted: the turn was stopped while the command ran]")
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "command interrupted: the turn was stopped while it ran; its process was ended" + shownBefore(shown)
	case err != nil && (isTimeout(err) || isCommandLost(err)):
		it.Status = StatusInterrupted
		var shown string
		it.DurationMs, shown = sessionInterrupted(err)
		it.AggregatedOutput = joinNote(shown, workerStopped)
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "The command was interrupted: the worker running it stopped before it answered. " +
			"Its processes ended with that worker; it was NOT run again. Check the state before retrying it." + shownBefore(shown)
	case err != nil:
		it.Status, it.AggregatedOutput = StatusFailed, rootMessage(err)
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "error: could not run the command: " + rootMessage(err)
	case out.SandboxError != "":
		it.Status, it.AggregatedOutput = StatusDeclined, out.SandboxError
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "refused: the command was NOT run, because the sandbox could not be applied on the workspace host: " + out.SandboxError
	case out.StartError != "":
		it.Status, it.AggregatedOutput = StatusFailed, out.StartError
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		return "error: the command did not start: " + out.StartError
	}
	it.AggregatedOutput, it.DurationMs, it.Status = out.Output, out.WallMs, StatusCompleted
	if out.Running {
		t.st.ExecSessions = append(t.st.ExecSessions, ExecSession{ID: id, Command: it.Command, Cwd: it.Cwd,
			Queue: out.Queue, CallID: c.Call.CallID, ItemID: it.ID, TTY: inv.TTY, Tail: tailOf(out.Tail), Used: t.touch(),
			StartedMs: workflow.Now(ctx).UnixMilli() - out.WallMs})
	} else {
		exit := out.ExitCode
		it.ExitCode = &exit
		if exit != 0 {
			it.Status = StatusFailed
		}
	}
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	return notes + sessionText(out)
}

// runWriteStdin writes to (or polls) an open session. The input goes to
// a process already approved, so no policy judges it.
func (t *turn) runWriteStdin(ctx workflow.Context, c activities.DecodedCall) harness.Entry {
	inv := c.Inv
	fail := func(text string) harness.Entry {
		return harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name, Text: text, Error: true}
	}
	i := t.sessionIndex(int(inv.SessionID))
	if i < 0 {
		return fail(fmt.Sprintf("write_stdin failed: no open session has ID %d (it never existed, or it ended or was closed). %s",
			inv.SessionID, t.openSessionsNote()))
	}
	s := t.st.ExecSessions[i]
	lo, hi, def := int64(minYieldMs), int64(maxYieldMs), int64(writeYieldDefault)
	if inv.Chars == "" {
		lo, hi, def = minPollYieldMs, maxPollYieldMs, pollYieldDefault
	}
	yield, notes := clampMs(inv.YieldMs, def, lo, hi)
	tokens, note := clampTokens(inv.MaxTokens)
	notes += note
	queue := s.Queue
	if queue == "" {
		queue = t.in.Config.HostQueue
	}
	if inv.Chars != "" && s.TTY {
		t.log.add(Event{Type: EventTerminalInteraction, Stdin: truncateMiddle(inv.Chars, maxLoggedStdin),
			Item: &Item{ID: s.ItemID, Type: ItemCommandExecution, Command: s.Command, Cwd: s.Cwd, ProcessID: itoa(s.ID), CallID: s.CallID}})
	}
	in := activities.WriteStdinInput{ThreadID: t.in.ThreadID, CallID: s.CallID, SessionID: s.ID, Chars: inv.Chars, YieldMs: yield, MaxTokens: tokens}
	var out activities.SessionOutput
	quiet := t.quietTools(ctx)
	if quiet {
		in.StopKey = c.Call.CallID
	}
	opts := t.sessionOpts(queue, yield, t.pickup(), "write_stdin: session "+itoa(s.ID), t.toolHeartbeat(quiet))
	f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), acts.WriteStdin, in)
	err := t.awaitTool(ctx, quiet, f, c.Call.CallID, queue, &out)
	switch {
	case err != nil && ctx.Err() != nil:
		return fail("write_stdin interrupted: the turn was stopped while it waited; the session is still open")
	case err != nil && isTimeout(err):
		t.dropSession(s.ID)
		_, shown := sessionInterrupted(err)
		return fail(fmt.Sprintf("write_stdin failed: session %d ended when its worker stopped (the worker process that held it is gone, and its processes with it). "+
			"The command was not run again. Its last output was:\n%s", s.ID, lastShown(s.Tail, shown)))
	case err != nil:
		return fail("write_stdin failed: " + rootMessage(err))
	case out.Unknown:
		t.dropSession(s.ID)
		return fail(fmt.Sprintf("write_stdin failed: session %d is no longer running. Its last output was:\n%s", s.ID, s.Tail))
	case out.StdinClosed:
		t.updateSession(s.ID, out.Tail)
		return fail(notes + fmt.Sprintf("write_stdin failed: session %d was started without tty, so its stdin is closed. "+
			"Poll it with empty chars, or start the command again with tty: true to type into it.", s.ID))
	}
	if out.Running {
		t.updateSession(s.ID, out.Tail)
	} else {
		t.dropSession(s.ID)
	}
	return harness.Entry{Kind: harness.KindToolOutput, CallID: c.Call.CallID, Name: c.Call.Name, Text: notes + sessionText(out)}
}

// sessionText is the output as Codex shows it to the model.
func sessionText(out activities.SessionOutput) string {
	var b strings.Builder
	b.WriteString(fmt.Sprintf("Chunk ID: %s\nWall time: %.4f seconds\n", out.ChunkID, float64(out.WallMs)/1000))
	if out.Running {
		b.WriteString(fmt.Sprintf("Process running with session ID %d\n", out.SessionID))
	} else {
		b.WriteString(fmt.Sprintf("Process exited with code %d\n", out.ExitCode))
	}
	b.WriteString(fmt.Sprintf("Original token count: %d\nOutput:\n", out.OriginalTokens))
	if out.Dropped > 0 {
		b.WriteString(fmt.Sprintf("[%d earlier bytes were not kept]\n", out.Dropped))
	}
	b.WriteString(out.Output)
	return b.String()
}

// sessionOpts are the options of a session call: once on queue, with
// heartbeat timeout hb. pickup > 0 bounds how long it may wait for its
// worker process: one that is gone never takes it.
func (t *turn) sessionOpts(queue string, yieldMs int64, pickup time.Duration, summary string, hb time.Duration) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue:              queue,
		ScheduleToStartTimeout: pickup,
		StartToCloseTimeout:    time.Duration(yieldMs)*time.Millisecond + time.Minute,
		HeartbeatTimeout:       hb,
		WaitForCancellation:    true,
		Summary:                summary,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
	}
}

// pickup is how long a session call waits for its worker process to take
// it (a live one polls its own queue all the time).
func (t *turn) pickup() time.Duration {
	if hb := t.in.Config.ExecHeartbeat; hb > 0 {
		return max(hb, time.Second)
	}
	return 5 * time.Second
}

func (t *turn) nextSessionID() int {
	if t.st.NextSession < 1000 {
		t.st.NextSession = 1000
	}
	id := t.st.NextSession
	t.st.NextSession++
	return id
}

// touch returns the next use counter.
func (t *turn) touch() int {
	t.st.SessionUses++
	return t.st.SessionUses
}

func (t *turn) sessionIndex(id int) int {
	for i, s := range t.st.ExecSessions {
		if s.ID == id {
			return i
		}
	}
	return -1
}

func (t *turn) updateSession(id int, tail string) {
	if i := t.sessionIndex(id); i >= 0 {
		if tail != "" {
			t.st.ExecSessions[i].Tail = tailOf(tail)
		}
		t.st.ExecSessions[i].Used = t.touch()
	}
}

func (t *turn) dropSession(id int) {
	if i := t.sessionIndex(id); i >= 0 {
		t.st.ExecSessions = append(t.st.ExecSessions[:i:i], t.st.ExecSessions[i+1:]...)
	}
}

func (t *turn) openSessionsNote() string {
	if len(t.st.ExecSessions) == 0 {
		return "No session is open."
	}
	ids := make([]string, len(t.st.ExecSessions))
	for i, s := range t.st.ExecSessions {
		ids[i] = itoa(s.ID)
	}
	return "Open sessions: " + strings.Join(ids, ", ") + "."
}

// makeRoomForSession closes the least recently used session when the
// thread has as many open as it may, and returns a note for the model.
func (t *turn) makeRoomForSession(ctx workflow.Context) string {
	if len(t.st.ExecSessions) < maxExecSessions {
		return ""
	}
	old := 0
	for i, s := range t.st.ExecSessions {
		if s.Used < t.st.ExecSessions[old].Used {
			old = i
		}
	}
	s := t.st.ExecSessions[old]
	t.dropSession(s.ID)
	closeSessions(ctx, t.in.ThreadID, []ExecSession{s}, t.pickup(), t.in.Config.HostQueue)
	return fmt.Sprintf("Note: session %d (%s) was closed: at most %d sessions stay open in a thread, and it was the least recently used.\n",
		s.ID, oneLine(s.Command, 80), maxExecSessions)
}

// closeSessions ends sessions in their worker processes, one call per
// process; a process that is gone takes no call (its sessions ended with
// it), so errors are dropped.
func closeSessions(ctx workflow.Context, threadID string, sessions []ExecSession, pickup time.Duration, hostQueue string) {
	var queues []string
	byQueue := map[string][]int{}
	for _, s := range sessions {
		q := s.Queue
		if q == "" {
			q = hostQueue
		}
		if _, ok := byQueue[q]; !ok {
			queues = append(queues, q)
		}
		byQueue[q] = append(byQueue[q], s.ID)
	}
	var futures []workflow.Future
	for _, q := range queues {
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue: q, ScheduleToStartTimeout: pickup, StartToCloseTimeout: time.Minute,
			Summary: "close sessions", RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1},
		})
		futures = append(futures, workflow.ExecuteActivity(actx, acts.CloseSessions,
			activities.CloseSessionsInput{ThreadID: threadID, IDs: byQueue[q]}))
	}
	for _, f := range futures {
		_ = f.Get(ctx, nil)
	}
}

func tailOf(s string) string {
	if len(s) <= sessionTailInState {
		return s
	}
	s = s[len(s)-sessionTailInState:]
	return strings.ToValidUTF8(s, "")
}

// truncateMiddle keeps the head and tail of s within max bytes.
func truncateMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max/2], "") + "…" + strings.ToValidUTF8(s[len(s)-max/2:], "")
}
