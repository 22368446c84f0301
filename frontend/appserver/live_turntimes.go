package appserver

import (
	"context"
	"time"
)

// TurnTimer is a [Backend] that knows when a turn began: its workflow's
// start, so a turn that outlived a restart of this server (or of the
// client) reports how long it really took ("Worked for" in the TUI).
type TurnTimer interface {
	TurnStarted(ctx context.Context, turnID string) (time.Time, error)
}

// turnStartedAt is when a turn began, durably if the backend knows;
// otherwise now, when this connection first sees it.
func (c *conn) turnStartedAt(turnID string) time.Time {
	if tt, ok := c.s.backend.(TurnTimer); ok {
		ctx, cancel := c.requestContext()
		defer cancel()
		if t, err := tt.TurnStarted(ctx, turnID); err == nil && !t.IsZero() {
			return t
		}
	}
	return c.s.opts.Now()
}

// TurnStarted reads when a turn's workflow (its current run) began.
func (a *TemporalBackend) TurnStarted(ctx context.Context, turnID string) (time.Time, error) {
	d, err := a.Client.DescribeWorkflowExecution(ctx, turnID, "")
	if err != nil {
		return time.Time{}, err
	}
	ex := d.GetWorkflowExecutionInfo()
	if t := ex.GetExecutionTime(); t != nil && !t.AsTime().IsZero() {
		return t.AsTime(), nil
	}
	return ex.GetStartTime().AsTime(), nil
}
