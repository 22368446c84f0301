package appserver

import (
	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// What the turn stream's files (turns.go, live.go, live_stream.go,
// manage.go) still build as maps: the shapes they pass on to the typed
// code. This file goes once they build protocol values.

// Turn is a turn without its items, as turns.go and manage.go write it
// (Items is always empty there); protocol.Turn is the typed one.
type Turn struct {
	ID          string           `json:"id"`
	Items       []map[string]any `json:"items"`
	ItemsView   string           `json:"itemsView"`
	Status      string           `json:"status"`
	Error       *TurnError       `json:"error"`
	StartedAt   *int64           `json:"startedAt"`
	CompletedAt *int64           `json:"completedAt"`
	DurationMs  *int64           `json:"durationMs"`
}

// userContent is a userMessage item's content as the follower carries
// it; userMessageItem reads it back.
func userContent(items []userInput) []map[string]any {
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		out = append(out, map[string]any{"type": it.Type, "text": it.Text, "url": it.URL, "path": it.Path})
	}
	return out
}

func userMessageItem(turnNumber int, content []map[string]any) protocol.UserMessageItem {
	items := make([]userInput, 0, len(content))
	for _, m := range content {
		s := func(k string) string { v, _ := m[k].(string); return v }
		items = append(items, userInput{Type: s("type"), Text: s("text"), URL: s("url"), Path: s("path")})
	}
	return userMessage(turnNumber, userInputs(items))
}

// note is a notification of the turn's, from a map of its params.
func (t *translator) note(method string, params map[string]any) notification {
	params["threadId"] = t.threadID
	params["turnId"] = t.turnID
	return notification{Method: method, Params: params}
}
