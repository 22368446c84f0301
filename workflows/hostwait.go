package workflows

import (
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// DefaultHostWait is how long a tool call waits for a workspace host that
// no worker serves before the turn fails (temporal.host_wait).
const DefaultHostWait = 2 * time.Minute

// hostWarnAfter is how long a tool call waits for its host's worker before
// the turn says so (half host_wait when that is shorter): a live worker
// takes a call within milliseconds.
const hostWarnAfter = 5 * time.Second

// hostBusyStep is how long a call waits on a host that has live pollers
// before it looks again (they may be busy, or a worker just died).
const hostBusyStep = 15 * time.Second

// watchHost gives onHost a way to end the turn.
func (t *turn) watchHost(ctx workflow.Context) (workflow.Context, func()) {
	if t.in.Config.HostQueue == "" {
		return ctx, func() {}
	}
	ctx, cancel := workflow.WithCancel(ctx)
	t.hostGiveUp = func(msg string) {
		if t.errText == "" {
			t.errText = msg
			t.hostLost = true
		}
		cancel()
	}
	return ctx, cancel
}

// onHost runs an activity on the workspace host's queue. When no worker
// takes it within seconds, the turn logs a warning and asks the server
// whether any worker polls that queue: if none does for the host_wait
// bound, the turn fails (the call never started, so nothing ran). A host
// whose worker polled lately (listed by the server for about a minute
// after it died) gets the same bound: a live worker takes a call in
// milliseconds, so one that takes none for host_wait is lost or stuck
// either way.
func (t *turn) onHost(ctx workflow.Context, opts workflow.ActivityOptions, act, in, out any) error {
	return t.onHostRun(ctx, opts, func(o workflow.ActivityOptions) error {
		return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), act, in).Get(ctx, out)
	})
}

// onHostRun is [turn.onHost] for a call that run starts with the options
// it is given and waits for.
func (t *turn) onHostRun(ctx workflow.Context, opts workflow.ActivityOptions, run func(workflow.ActivityOptions) error) error {
	if t.hostGiveUp == nil {
		return run(opts)
	}
	bound := t.in.Config.HostWait
	if bound <= 0 {
		bound = DefaultHostWait
	}
	host := opts.TaskQueue
	step, waited := min(hostWarnAfter, bound/2), time.Duration(0)
	for {
		o := opts
		o.ScheduleToStartTimeout = step
		err := run(o)
		if !isScheduleToStart(err) || ctx.Err() != nil {
			return err
		}
		waited += step
		live := t.livePollers(ctx, host)
		if live > 0 {
			t.warnHost(fmt.Sprintf("the worker of host %s has not taken a tool call for %s (busy, or just lost); waiting", host, step))
			if waited >= bound {
				t.hostGiveUp(fmt.Sprintf("no worker of host %s took the tool call: gave up after %s (temporal.host_wait; a worker polled in the last minute, so it is stuck or just lost)", host, bound))
				return err
			}
			step = min(hostBusyStep, bound-waited)
			continue
		}
		t.warnHost(fmt.Sprintf("no worker serves host %s; waiting (the turn fails after %s: temporal.host_wait)", host, bound))
		if waited >= bound {
			t.hostGiveUp(fmt.Sprintf("no worker serves host %s: gave up after %s (temporal.host_wait)", host, bound))
			return err
		}
		step = bound - waited
	}
}

// warnHost logs a warning, each once per turn: the front ends show it as
// they show any non-fatal error.
func (t *turn) warnHost(msg string) {
	if t.hostWarned == msg {
		return
	}
	t.hostWarned = msg
	it := t.newItem(ItemError)
	it.Message = msg
	t.log.add(Event{Type: EventItemCompleted, Item: it})
}

// livePollers counts the workers that polled queue lately; an answer the
// server did not give counts as none.
func (t *turn) livePollers(ctx workflow.Context, queue string) int {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		Summary:             "pollers · " + queue,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 2},
	})
	var out activities.HostPollersOutput
	if err := workflow.ExecuteActivity(actx, acts.HostPollers, activities.HostPollersInput{Queue: queue}).Get(ctx, &out); err != nil {
		return 0
	}
	return out.Live
}

func isScheduleToStart(err error) bool {
	var te *temporal.TimeoutError
	return errors.As(err, &te) && te.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START
}
