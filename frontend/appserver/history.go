package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// Paged history (thread/turns/list, thread/items/list) and compaction on
// request (thread/compact/start): what Codex 0.171's TUI calls in a
// session. The cursors are offsets into the thread's turns or items.

// Compactor is a Backend that can compact a thread's context on request;
// without it thread/compact/start is refused. (An optional interface, so
// other Backends need no change.)
type Compactor interface {
	Compact(ctx context.Context, threadID string) error
}

type historyParams struct {
	ThreadID      string          `json:"threadId"`
	TurnID        *string         `json:"turnId"`
	Cursor        json.RawMessage `json:"cursor"`
	Limit         *int            `json:"limit"`
	SortDirection *string         `json:"sortDirection"`
	ItemsView     *string         `json:"itemsView"`
}

// page cuts n entries in the asked direction (desc unless asc is the
// default); it returns the indexes to show, oldest-first positions, and
// the cursors.
func (p historyParams) page(n int, ascDefault bool, anchor func(json.RawMessage) (int, bool)) (idx []int, next, back *string, err error) {
	asc := ascDefault
	if p.SortDirection != nil {
		switch *p.SortDirection {
		case "asc":
			asc = true
		case "desc":
			asc = false
		default:
			return nil, nil, nil, invalidRequest("Invalid request: unknown variant `%s`, expected `asc` or `desc`", *p.SortDirection)
		}
	}
	start := 0
	if len(p.Cursor) > 0 && string(p.Cursor) != "null" {
		var s string
		if json.Unmarshal(p.Cursor, &s) == nil {
			if start, err = strconv.Atoi(s); err != nil || start < 0 {
				return nil, nil, nil, invalidRequest("Invalid request: invalid cursor %q", s)
			}
		} else if i, ok := anchor(p.Cursor); ok {
			start = i
		} else {
			return nil, nil, nil, invalidRequest("Invalid request: invalid cursor %s", clip(string(p.Cursor), 100))
		}
	}
	limit := n
	if p.Limit != nil && *p.Limit > 0 {
		limit = *p.Limit
	}
	for k := start; k < n && len(idx) < limit; k++ {
		if asc {
			idx = append(idx, k)
		} else {
			idx = append(idx, n-1-k)
		}
	}
	if start+len(idx) < n {
		next = protocol.Nullable(strconv.Itoa(start + len(idx)))
	}
	if len(idx) > 0 {
		// Reversing the direction from here shows this page's first
		// entry again.
		back = protocol.Nullable(strconv.Itoa(n - 1 - start))
	}
	return idx, next, back, nil
}

// threadTurnsList pages through a thread's turns, newest first unless
// asked otherwise.
func (c *conn) threadTurnsList(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p historyParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	turns, err := c.historyTurns(p.ThreadID)
	if err != nil {
		return nil, err
	}
	idx, next, back, err := p.page(len(turns), false, func(json.RawMessage) (int, bool) { return 0, false })
	if err != nil {
		return nil, err
	}
	data := []protocol.Turn{}
	for _, i := range idx {
		t := turns[i]
		if p.ItemsView != nil && *p.ItemsView == protocol.ItemsNotLoaded {
			t.Items, t.ItemsView = []protocol.ThreadItem{}, protocol.ItemsNotLoaded
		}
		data = append(data, t)
	}
	return &result{value: protocol.HistoryPage[protocol.Turn]{Data: data, NextCursor: next, BackwardsCursor: back}}, nil
}

// threadItemsList pages through the items of a thread (or of one of its
// turns), oldest first unless asked otherwise.
func (c *conn) threadItemsList(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p historyParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	turns, err := c.historyTurns(p.ThreadID)
	if err != nil {
		return nil, err
	}
	var all []protocol.TurnItem
	found := p.TurnID == nil || *p.TurnID == ""
	for _, t := range turns {
		if p.TurnID != nil && *p.TurnID != "" && t.ID != *p.TurnID {
			continue
		}
		found = true
		for _, it := range t.Items {
			all = append(all, protocol.TurnItem{TurnID: t.ID, Item: it})
		}
	}
	if !found {
		return nil, invalidRequest("turn not found: %s", *p.TurnID)
	}
	anchor := func(raw json.RawMessage) (int, bool) {
		var a struct {
			Type   string `json:"type"`
			ItemID string `json:"itemId"`
		}
		if json.Unmarshal(raw, &a) != nil || a.Type != "item" {
			return 0, false
		}
		for i, e := range all {
			if e.Item.ItemID() == a.ItemID {
				// Exclusive: the entries after it (ascending).
				return i + 1, true
			}
		}
		return 0, false
	}
	idx, next, back, err := p.page(len(all), true, anchor)
	if err != nil {
		return nil, err
	}
	data := []protocol.TurnItem{}
	for _, i := range idx {
		data = append(data, all[i])
	}
	return &result{value: protocol.HistoryPage[protocol.TurnItem]{Data: data, NextCursor: next, BackwardsCursor: back}}, nil
}

func (c *conn) historyTurns(threadID string) ([]protocol.Turn, error) {
	ctx, cancel := c.requestContext()
	defer cancel()
	info, err := c.readThread(ctx, threadID)
	if err != nil {
		return nil, err
	}
	turns, _, err := c.turns(ctx, info)
	return turns, err
}

// threadCompactStart compacts an idle thread's context (the thread
// workflow's compact update: a summary replaces the older entries); it
// answers once the compaction is done.
func (c *conn) threadCompactStart(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadIDParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	comp, ok := c.s.backend.(Compactor)
	if !ok {
		return nil, invalidRequest("thread/compact/start is not supported by this server")
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	started := c.s.opts.Now()
	if err := comp.Compact(ctx, p.ThreadID); err != nil {
		return nil, manageError(p.ThreadID, err)
	}
	return &result{value: protocol.Empty{}, then: func() { c.compactionTurn(p.ThreadID, started) }}, nil
}

// compactionTurn tells the client about a compaction as Codex does: a
// turn with one contextCompaction item. Codex's TUI shows "Compacting
// context" until that turn completes. (The turn is not one of the
// thread's: thread/read does not list it.)
func (c *conn) compactionTurn(threadID string, started time.Time) {
	now := c.s.opts.Now()
	turnID := fmt.Sprintf("compact-%d", started.UnixNano())
	item := protocol.ContextCompactionItem{ID: turnID + "-item"}
	start, done, d := started.Unix(), now.Unix(), now.Sub(started).Milliseconds()
	noItems := []protocol.ThreadItem{}
	c.notify(notice(protocol.TurnStarted{ThreadID: threadID,
		Turn: protocol.Turn{ID: turnID, Items: noItems, ItemsView: protocol.ItemsNotLoaded, Status: turnInProgress, StartedAt: &start}}))
	c.notify(notice(protocol.ItemStarted{ThreadID: threadID, TurnID: turnID, Item: item, StartedAtMs: started.UnixMilli()}))
	c.notify(notice(protocol.ItemCompleted{ThreadID: threadID, TurnID: turnID, Item: item, CompletedAtMs: now.UnixMilli()}))
	c.notify(notice(protocol.TurnCompleted{ThreadID: threadID,
		Turn: protocol.Turn{ID: turnID, Items: noItems, ItemsView: protocol.ItemsNotLoaded, Status: turnCompleted,
			StartedAt: &start, CompletedAt: &done, DurationMs: &d}}))
}
