package appserver

import (
	"encoding/json"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// thread/search (experimental; the TUI's @-mentions of threads): threads
// whose name or first prompt holds the search term, case-insensitively,
// newest first, from the same listing as thread/list.

type searchParams struct {
	SearchTerm string `json:"searchTerm"`
	Limit      *int   `json:"limit"`
	Archived   *bool  `json:"archived"`
}

// searchScan bounds how many threads one search reads.
const searchScan = 1000

func (c *conn) threadSearch(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p searchParams
	if err := decodeParams(raw, &p, "searchTerm"); err != nil {
		return nil, err
	}
	limit := defaultListLimit
	if p.Limit != nil && *p.Limit > 0 {
		limit = min(*p.Limit, 200)
	}
	term := strings.ToLower(strings.TrimSpace(p.SearchTerm))
	ctx, cancel := c.requestContext()
	defer cancel()
	data := []protocol.ThreadSearchResult{}
	q := ListQuery{Limit: 100, Archived: p.Archived != nil && *p.Archived}
	for scanned := 0; scanned < searchScan && len(data) < limit; {
		page, err := c.s.backend.ListThreads(ctx, q)
		if err != nil {
			return nil, internalError("listing threads: %v", err)
		}
		for _, info := range page.Threads {
			scanned++
			if info.Preview == "" && info.Name == "" {
				continue // no user message yet: not listed
			}
			snippet, ok := searchMatch(info, term)
			if !ok {
				continue
			}
			data = append(data, protocol.ThreadSearchResult{Thread: c.thread(info, c.statusOf(info), nil), Snippet: snippet})
			if len(data) >= limit {
				break
			}
		}
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	return &result{value: protocol.ThreadSearchResponse{Data: data}}, nil
}

// searchMatch tells whether a thread's name or first prompt holds term
// (lower case; empty matches every thread) and returns the text that did.
func searchMatch(info ThreadInfo, term string) (string, bool) {
	for _, s := range []string{info.Name, info.Preview} {
		if s != "" && strings.Contains(strings.ToLower(s), term) {
			return s, true
		}
	}
	return "", false
}
