package appserver

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// thread/list: pages of threads, filtered as Codex's clients ask.

// ErrInvalidCursor is a [Backend]'s answer to a cursor it did not issue
// (or can no longer read).
var ErrInvalidCursor = errors.New("invalid cursor")

type listParams struct {
	Cursor         *string         `json:"cursor"`
	Limit          *int            `json:"limit"`
	ModelProviders []string        `json:"modelProviders"`
	Cwd            json.RawMessage `json:"cwd"`
	SearchTerm     *string         `json:"searchTerm"`
	Archived       *bool           `json:"archived"`
	// SourceKinds and ParentThreadID select sub-agents (see sourceMatches).
	SourceKinds    []string `json:"sourceKinds"`
	ParentThreadID *string  `json:"parentThreadId"`
}

// defaultListLimit is thread/list's page size when the client sets none.
const defaultListLimit = 25

// threadList pages through threads, newest first. The filters apply to
// each page as read, so a page may hold fewer threads than the limit while
// a next cursor remains.
func (c *conn) threadList(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p listParams
	if err := decodeParams(orEmptyObject(raw), &p); err != nil {
		return nil, err
	}
	q := ListQuery{Limit: defaultListLimit}
	if p.Limit != nil && *p.Limit > 0 {
		q.Limit = min(*p.Limit, 200)
	}
	if p.Cursor != nil {
		q.Cursor = *p.Cursor
	}
	var cwds []string
	if isSet(p.Cwd) {
		var one string
		if err := json.Unmarshal(p.Cwd, &one); err == nil {
			cwds = []string{c.absPath(one)}
		} else if err := json.Unmarshal(p.Cwd, &cwds); err != nil {
			return nil, invalidRequest("Invalid request: invalid type: %s for field `cwd`, expected a string or an array of strings", jsonKind(p.Cwd))
		} else {
			for i := range cwds {
				cwds[i] = c.absPath(cwds[i])
			}
		}
	}
	q.Archived = p.Archived != nil && *p.Archived
	data := []Thread{}
	var next *string
	{
		ctx, cancel := c.requestContext()
		defer cancel()
		page, err := c.s.backend.ListThreads(ctx, q)
		if err != nil {
			if errors.Is(err, ErrInvalidCursor) {
				return nil, invalidRequest("Invalid request: invalid cursor")
			}
			return nil, internalError("listing threads: %v", err)
		}
		for _, info := range page.Threads {
			if info.Preview == "" && info.Name == "" {
				// No user message yet (a thread/start or /new the user
				// left, unnamed): Codex's server lists none such, so the
				// resume picker offers no empty entries.
				continue
			}
			if !matches(info, p.ModelProviders, cwds, p.SearchTerm) || !sourceMatches(info, p.SourceKinds, p.ParentThreadID) {
				continue
			}
			data = append(data, c.thread(info, c.statusOf(info), nil))
		}
		if page.NextCursor != "" {
			next = &page.NextCursor
		}
	}
	return &result{value: protocol.HistoryPage[Thread]{Data: data, NextCursor: next}}, nil
}

func matches(info ThreadInfo, providers, cwds []string, search *string) bool {
	if len(providers) > 0 && !contains(providers, info.Config.Provider.ID) {
		return false
	}
	if len(cwds) > 0 && !contains(cwds, info.Config.Cwd) {
		return false
	}
	if search != nil && *search != "" && !strings.Contains(info.Preview, *search) {
		return false
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
