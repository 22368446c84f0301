package activities

import (
	"context"
	"errors"
	"time"
)

// HostPollersInput names a workspace host's task queue.
type HostPollersInput struct {
	Queue string
}

// HostPollersOutput counts the workers that polled the queue lately.
type HostPollersOutput struct {
	Live int
}

// LivePollerAge is how recently a worker must have polled to count as
// alive: a live worker's long poll lasts at most about a minute before it
// polls again, while the server lists a worker that is gone for minutes.
const LivePollerAge = 70 * time.Second

// HostPollers tells a turn whose tool call waits on a host queue whether
// any worker serves that host (it is busy) or none does (it is missing).
func (a *Activities) HostPollers(ctx context.Context, in HostPollersInput) (HostPollersOutput, error) {
	if a.Pollers == nil {
		return HostPollersOutput{}, errors.New("this worker cannot describe task queues")
	}
	seen, err := a.Pollers(ctx, in.Queue)
	if err != nil {
		return HostPollersOutput{}, err
	}
	out := HostPollersOutput{}
	for _, at := range seen {
		if time.Since(at) <= LivePollerAge {
			out.Live++
		}
	}
	return out, nil
}
