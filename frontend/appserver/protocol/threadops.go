package protocol

// thread/delete, thread/search, thread/inject_items and the background
// terminals' clean and terminate.

// MethodThreadDeleted tells that a thread was deleted (after the
// response to thread/delete).
const MethodThreadDeleted = "thread/deleted"

// ThreadDeleted names the deleted thread.
type ThreadDeleted struct {
	ThreadID string `json:"threadId"`
}

func (ThreadDeleted) Method() string { return MethodThreadDeleted }

// ThreadSearchResult is one thread found by thread/search, with the text
// that matched.
type ThreadSearchResult struct {
	Thread  Thread `json:"thread"`
	Snippet string `json:"snippet"`
}

// ThreadSearchResponse is thread/search's page (experimental).
type ThreadSearchResponse struct {
	Data            []ThreadSearchResult `json:"data"`
	NextCursor      *string              `json:"nextCursor"`
	BackwardsCursor *string              `json:"backwardsCursor"`
}

// ThreadBackgroundTerminal is one of a thread's background terminals
// (thread/backgroundTerminals/list, experimental); OsPid, CpuPercent and
// RssKb are optional in 0.171's schema and left out here.
type ThreadBackgroundTerminal struct {
	ProcessID string `json:"processId"`
	Command   string `json:"command"`
	Cwd       string `json:"cwd"`
	ItemID    string `json:"itemId"`
}

// TerminateResponse answers thread/backgroundTerminals/terminate.
type TerminateResponse struct {
	Terminated bool `json:"terminated"`
}
