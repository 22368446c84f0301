package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// Goals: thread/goal/set, get and clear act on the goal the thread
// workflow keeps (workflows/goal.go). Clients following a thread hear of
// every change as thread/goal/updated or thread/goal/cleared: the caller
// right after its response, every follower when its watcher reads the
// thread (watch.go calls goalSeen), which is also how changes made by the
// model, by the thread's own bounds and by other front ends arrive.

// GoalBackend is a [Backend] whose threads keep goals.
type GoalBackend interface {
	SetGoal(ctx context.Context, threadID string, r workflows.GoalSetRequest) (workflows.Goal, error)
	ClearGoal(ctx context.Context, threadID string) (bool, error)
	Goal(ctx context.Context, threadID string) (*workflows.Goal, error)
}

type goalSetParams struct {
	ThreadID    string  `json:"threadId"`
	Objective   *string `json:"objective"`
	Status      *string `json:"status"`
	TokenBudget *int64  `json:"tokenBudget"`
	Origin      *string `json:"origin"`
}

func (c *conn) goals() (GoalBackend, error) {
	g, ok := c.s.backend.(GoalBackend)
	if !ok {
		return nil, invalidRequest("goals are not available on this server")
	}
	return g, nil
}

func (c *conn) threadGoalSet(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p goalSetParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	gb, err := c.goals()
	if err != nil {
		return nil, err
	}
	r := workflows.GoalSetRequest{Objective: deref(p.Objective), Status: deref(p.Status), TokenBudget: p.TokenBudget, Origin: deref(p.Origin)}
	if r.Status != "" && !workflows.ValidGoalStatus(r.Status) {
		return nil, invalidRequest("Invalid request: unknown variant `%s`, expected one of %s", r.Status, strings.Join(workflows.GoalStatuses, ", "))
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	g, err := gb.SetGoal(ctx, p.ThreadID, r)
	if err != nil {
		return nil, goalError(p.ThreadID, err)
	}
	shown := threadGoal(p.ThreadID, &g)
	return &result{value: protocol.ThreadGoalSetResponse{Goal: shown}, then: func() {
		c.markGoal(p.ThreadID, &g)
		c.notify(notice(protocol.ThreadGoalUpdated{ThreadID: p.ThreadID, Goal: shown}))
	}}, nil
}

func (c *conn) threadGoalGet(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadIDParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	gb, err := c.goals()
	if err != nil {
		return &result{value: protocol.ThreadGoalResponse{}}, nil
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	g, err := gb.Goal(ctx, p.ThreadID)
	if err != nil {
		return nil, goalError(p.ThreadID, err)
	}
	if g == nil {
		return &result{value: protocol.ThreadGoalResponse{}}, nil
	}
	shown := threadGoal(p.ThreadID, g)
	return &result{value: protocol.ThreadGoalResponse{Goal: &shown}}, nil
}

func (c *conn) threadGoalClear(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadIDParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	gb, err := c.goals()
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	cleared, err := gb.ClearGoal(ctx, p.ThreadID)
	if err != nil {
		return nil, goalError(p.ThreadID, err)
	}
	return &result{value: protocol.ThreadGoalClearResponse{Cleared: cleared}, then: func() {
		if cleared {
			c.markGoal(p.ThreadID, nil)
			c.notify(notice(protocol.ThreadGoalCleared{ThreadID: p.ThreadID}))
		}
	}}, nil
}

// goalError maps a refusal to the client's error.
func goalError(threadID string, err error) error {
	if errors.Is(err, threads.ErrGoalRefused) {
		return invalidRequest("%s", innermost(err))
	}
	return manageError(threadID, err)
}

// threadGoal is a goal in the protocol's shape.
func threadGoal(threadID string, g *workflows.Goal) protocol.ThreadGoal {
	return protocol.ThreadGoal{ThreadID: threadID, Objective: g.Objective, Status: g.Status, TokenBudget: g.TokenBudget,
		TokensUsed: g.TokensUsed, TimeUsedSeconds: g.TimeUsedSeconds, CreatedAt: g.CreatedAt.Unix(), UpdatedAt: g.UpdatedAt.Unix()}
}

// goalKey tells one state of a goal from another ("" for none).
func goalKey(g *workflows.Goal) string {
	if g == nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", g.Seq, g.UpdatedAt.UnixNano())
}

// markGoal records the goal state this connection has told its client
// of, so the watcher does not tell it again.
func (c *conn) markGoal(threadID string, g *workflows.Goal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ts := c.threads[threadID]; ts != nil {
		k := goalKey(g)
		ts.goalKey = &k
	}
}

// goalSeen is the watcher's: a goal that changed since the connection
// last saw it is told to its client. The first sight is the state the
// client took the thread up with (thread/goal/get gives it), not news.
func (c *conn) goalSeen(ts *threadState, g *workflows.Goal) {
	k := goalKey(g)
	c.mu.Lock()
	prev := ts.goalKey
	ts.goalKey = &k
	c.mu.Unlock()
	if prev == nil || *prev == k {
		return
	}
	if g == nil {
		c.notify(notice(protocol.ThreadGoalCleared{ThreadID: ts.id}))
		return
	}
	c.notify(notice(protocol.ThreadGoalUpdated{ThreadID: ts.id, Goal: threadGoal(ts.id, g)}))
}

// goalEvent tells the client of a change a goal tool of the followed
// turn made (create_goal, update_goal), as the model makes it, with the
// turn's id. Every connection following the turn gets it; a change older
// than one the client was told of already (a turn's log read again from
// its start) is not told.
func (f *follower) goalEvent(e workflows.Event) {
	if e.Type != workflows.EventGoalUpdated || e.Goal == nil {
		return
	}
	c, g := f.c, e.Goal
	k := goalKey(g)
	c.mu.Lock()
	prev := f.ts.goalKey
	stale := prev != nil && goalNotAfter(g, *prev)
	if !stale {
		f.ts.goalKey = &k
	}
	c.mu.Unlock()
	if stale {
		return
	}
	turnID := f.turnID
	c.notify(notice(protocol.ThreadGoalUpdated{ThreadID: f.threadID, TurnID: &turnID, Goal: threadGoal(f.threadID, g)}))
}

// goalNotAfter: g is the state key names or an earlier one of the same
// thread's goal.
func goalNotAfter(g *workflows.Goal, key string) bool {
	var seq int
	var at int64
	if _, err := fmt.Sscanf(key, "%d/%d", &seq, &at); err != nil {
		return false // no goal was told, or it was cleared
	}
	ns := g.UpdatedAt.UnixNano()
	return ns < at || (ns == at && g.Seq <= seq)
}
