package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// LocalExecInput is a shell command a turn runs as a local activity, in
// its own workflow task, when that task's worker serves the command's
// workspace host.
type LocalExecInput struct {
	Exec ExecInput `json:"exec"`
	// HostQueue is the command's workspace host queue: a worker that
	// serves another answers Elsewhere, and the command runs as a
	// regular activity there.
	HostQueue string `json:"host_queue"`
	// Key names the command in the host-local record of started commands
	// (unique within the turn).
	Key string `json:"key"`
	// Budget is how long the command may run inside the workflow task;
	// one still running then is handed off (see [LocalExecOutput]).
	Budget time.Duration `json:"budget"`
	// Forget are keys of earlier commands of the turn whose outcome is
	// in history: their records go.
	Forget []string `json:"forget,omitempty"`
}

// LocalExecOutput is what became of a [LocalExecInput].
type LocalExecOutput struct {
	// Elsewhere: this worker does not serve the host; nothing ran.
	Elsewhere bool `json:"elsewhere,omitempty"`
	// StartedBefore: an earlier attempt started the command (its record
	// is there): it is not run again, and counts as interrupted.
	StartedBefore bool `json:"started_before,omitempty"`
	// Handoff names the command, still running after the budget, for a
	// regular activity on HandoffQueue (a queue only this worker process
	// polls) to wait for ([ExecInput.Resume]).
	Handoff      string `json:"handoff,omitempty"`
	HandoffQueue string `json:"handoff_queue,omitempty"`
	// Output is the finished command's outcome.
	Output *ExecOutput `json:"output,omitempty"`
	// Canceled is set when the command was stopped while it ran (Output
	// then carries what it did).
	Canceled bool `json:"canceled,omitempty"`
	// ElapsedMs is how long the local activity took (a login shell's
	// snapshot included): what the workflow task spent on the command.
	ElapsedMs int64 `json:"elapsed_ms,omitempty"`
}

// ErrTypeCommandLost is the error type of a handed-off command that its
// worker no longer holds (the worker restarted): its outcome is unknown.
const ErrTypeCommandLost = "CommandLost"

// ErrTypeCommandStartedBefore is the error type of a command whose
// host-local record shows an earlier attempt started it.
const ErrTypeCommandStartedBefore = "CommandStartedBefore"

func errCommandStartedBefore() error {
	return temporal.NewNonRetryableApplicationError("the command was started before (the worker running it stopped); it is not run again", ErrTypeCommandStartedBefore, nil)
}

// ExecHere runs a command as a local activity ([LocalExecInput]). The
// record of the started command is written before its process starts,
// so an attempt that repeats (its workflow task failed or its worker
// died before the outcome reached history) finds it and reports the
// command interrupted instead of running it again.
func (a *Activities) ExecHere(ctx context.Context, in LocalExecInput) (*LocalExecOutput, error) {
	if in.HostQueue == "" || in.HostQueue != a.HostQueue {
		return &LocalExecOutput{Elsewhere: true}, nil
	}
	begin := time.Now()
	out, err := a.execHere(ctx, in)
	if out != nil {
		out.ElapsedMs = time.Since(begin).Milliseconds()
	}
	return out, err
}

func (a *Activities) execHere(ctx context.Context, in LocalExecInput) (*LocalExecOutput, error) {
	rec := a.started()
	turn := turnOf(ctx)
	rec.forget(turn, in.Forget)
	fresh, err := rec.record(turn, in.Key)
	if err != nil {
		return nil, err
	}
	if !fresh {
		// Reported interrupted: an earlier attempt's command that still
		// runs in this process (its workflow task failed while it ran, or
		// after it was handed off) is ended first.
		a.localRuns().end(turn, in.Key)
		return &LocalExecOutput{StartedBefore: true}, nil
	}
	c, early, err := a.startCommand(ctx, in.Exec, true)
	if c == nil {
		if err != nil {
			return nil, err
		}
		return &LocalExecOutput{Output: early}, nil
	}
	a.localRuns().add(turn, in.Key, c)
	// A stop (StopCommand, an earlier attempt's record found) kills the
	// command even while it is handed off and no activity waits for it.
	context.AfterFunc(c.stopCtx, c.proc.Kill)
	out, err := a.waitCommand(ctx, c, in.Budget)
	switch {
	case out == nil && err == nil:
		return &LocalExecOutput{Handoff: a.handedOff().put(c), HandoffQueue: a.SessionQueue}, nil
	case err != nil && out != nil:
		return &LocalExecOutput{Output: out, Canceled: true}, nil
	case err != nil:
		return nil, err
	}
	return &LocalExecOutput{Output: out}, nil
}

// resumeCommand waits for a command that [Activities.ExecHere] handed
// off, heartbeating its output as [Activities.Exec] does (what it printed
// before, at once).
func (a *Activities) resumeCommand(ctx context.Context, in ExecInput) (*ExecOutput, error) {
	c := a.handedOff().take(in.Resume)
	if c == nil {
		return nil, temporal.NewNonRetryableApplicationError("the command's worker no longer holds it", ErrTypeCommandLost, nil)
	}
	c.resumed = true
	return a.waitCommand(ctx, c, 0)
}

// turnOf is the workflow id of the activity's turn ("" outside one).
func turnOf(ctx context.Context) string {
	if !activity.IsActivity(ctx) {
		return ""
	}
	return activity.GetInfo(ctx).WorkflowExecution.ID
}

// commandUnclaimed is how long a handed-off command waits to be taken
// over before it is stopped (the workflow task that held the handoff
// failed, and its retry found the record): longer than the taking
// activity's schedule-to-start timeout.
const commandUnclaimed = 15 * time.Second

// handedOff returns the worker's registry of commands that outran their
// local activity's budget, made on first use. One not taken over is
// stopped.
func (a *Activities) handedOff() *handoffs[*command] {
	a.handedOnce.Do(func() {
		a.handed = newHandoffs(commandUnclaimed,
			func(c *command) string { return c.in.CallID },
			func(c *command) {
				endCommand(c)
				c.release()
			})
	})
	return a.handed
}

// localRuns are the commands this process's local activities started,
// by turn and key, while their processes run.
type localRuns struct {
	mu   sync.Mutex
	cmds map[string]*command
}

func (a *Activities) localRuns() *localRuns {
	a.localOnce.Do(func() { a.local = &localRuns{cmds: map[string]*command{}} })
	return a.local
}

// add keeps c until its process ends.
func (l *localRuns) add(turn, key string, c *command) {
	id := turn + "\x00" + key
	l.mu.Lock()
	l.cmds[id] = c
	l.mu.Unlock()
	go func() {
		<-c.proc.Done()
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.cmds[id] == c {
			delete(l.cmds, id)
		}
	}()
}

// running tells whether turn's command key runs here.
func (l *localRuns) running(turn, key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cmds[turn+"\x00"+key] != nil
}

// end stops turn's command key if it runs here, and waits until its
// processes are gone.
func (l *localRuns) end(turn, key string) {
	l.mu.Lock()
	c := l.cmds[turn+"\x00"+key]
	l.mu.Unlock()
	if c != nil {
		endCommand(c)
	}
}

// endCommand stops c and waits until its processes are gone. It kills
// them itself: a handed-off command that no activity took over has no
// [Activities.waitCommand] to do it.
func endCommand(c *command) {
	c.stop(errStopped)
	c.proc.Kill()
	<-c.proc.Done()
}

// ForgetCommandsInput names the turn's commands whose outcome is in
// history, on their workspace host.
type ForgetCommandsInput struct {
	HostQueue string   `json:"host_queue"`
	Keys      []string `json:"keys"`
}

// ForgetCommands removes records of started commands (a local activity
// as the turn closes; a worker of another host does nothing).
func (a *Activities) ForgetCommands(ctx context.Context, in ForgetCommandsInput) error {
	if in.HostQueue == "" || in.HostQueue != a.HostQueue {
		return nil
	}
	a.started().forget(turnOf(ctx), in.Keys)
	return nil
}
