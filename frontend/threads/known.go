package threads

import (
	"context"

	"github.com/interpreter-dev/interpreter/workflows"
)

// KnownSource is the source of a turn that has ended and whose events are
// all in its result's Tail: a quick turn, whose thread answered the start
// with its result ([workflows.StartTurnResponse].Result). A stream of it
// tells the turn as a follower of its workflow would, without reading the
// workflow.
func KnownSource(res workflows.TurnResult) Source {
	return Source{
		Follow: func(ctx context.Context, after int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
			for _, e := range res.Tail {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if e.Seq > after {
					fn(e)
				}
			}
			r := res
			return &r, nil
		},
		Outcome: func(context.Context) (workflows.TurnResult, error) { return res, nil },
	}
}

// tookInQuick records a turn whose thread answered its start with the
// result: the thread has taken in its end.
func tookInQuick(threadID string, resp workflows.StartTurnResponse) {
	if resp.Result == nil {
		return
	}
	noteEnded(resp.TurnID)
	markTakenIn(threadID, resp.TurnID)
}
