package activities

import (
	"context"
	"strings"
)

// StopQueueTag marks, in a host worker's identity, the task queue only
// that worker process polls (its sessions queue, where [Activities.StopCommand]
// is registered too): "NAME@HOST/PID (HOST_QUEUE) stop=QUEUE".
const StopQueueTag = " stop="

// StopQueueOf reads the stop queue from a worker identity ("" when it
// names none).
func StopQueueOf(identity string) string {
	_, q, ok := strings.Cut(identity, StopQueueTag)
	if !ok {
		return ""
	}
	q, _, _ = strings.Cut(q, " ")
	return q
}

// commandQueue finds the stop queue of the worker running a turn's
// command: the identity of the worker that took the command's pending
// activity. "" when that is unknown, or is this process.
func (a *Activities) commandQueue(ctx context.Context, in StopCommandInput) string {
	if a.CommandWorker == nil {
		return ""
	}
	id, err := a.CommandWorker(ctx, in.TurnID, in.CallID)
	if err != nil {
		return ""
	}
	if q := StopQueueOf(id); q != a.SessionQueue {
		return q
	}
	return ""
}
