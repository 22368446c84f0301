package activities

import (
	"sync"
	"time"
)

// ExecProgress is the heartbeat detail of a running command: how much it
// has written so far and the last bytes of it. A reader in another process
// (a front end calling DescribeWorkflowExecution) keeps the offset it has
// seen and takes Tail[seen-Offset:] as the new output; when it fell more
// than len(Tail) behind, the bytes in between are gone (it can tell how
// many). Heartbeat details live only on the pending activity, never in
// workflow history, so streaming output costs no history.
type ExecProgress struct {
	CallID string `json:"call_id"`
	// Total is the number of bytes the command has written (stdout and
	// stderr together, as the model reads them).
	Total int64 `json:"total"`
	// Offset is the position of Tail's first byte in the output.
	Offset int64 `json:"offset"`
	// Tail is the last LiveTailBytes bytes at most (base64 in JSON).
	Tail []byte `json:"tail,omitempty"`
	// ElapsedMs is how long the command had run at this heartbeat. The
	// last heartbeat the server kept tells the workflow how long a command
	// ran whose worker died.
	ElapsedMs int64 `json:"elapsed_ms,omitempty"`
	// WakeAfterMs, when set, is the silence after which the command's
	// next output wakes the turn's followers through its history
	// ([LiveWakeSignal]); 0: it wakes no one, so followers keep asking.
	WakeAfterMs int64 `json:"wake_after_ms,omitempty"`
}

// ModelProgress is the heartbeat detail of a model call whose answer is
// streaming: its message text so far, bounded and read as [ExecProgress]
// is. Step is the turn's step the call is for.
type ModelProgress struct {
	Step   int    `json:"step"`
	Total  int64  `json:"total"`
	Offset int64  `json:"offset"`
	Tail   []byte `json:"tail,omitempty"`
	// Reasoning is the reasoning summary text streamed so far, kept the
	// same way (nil: none).
	Reasoning *ExecProgress `json:"reasoning,omitempty"`
}

// liveAfter is how long a model call runs before its heartbeats carry its
// text: a fast call sends none (the first heartbeat is a server round
// trip).
const liveAfter = 200 * time.Millisecond

// LiveTailBytes bounds the output a heartbeat carries.
const LiveTailBytes = 16 << 10

// liveEvery paces heartbeats of a command whose output grows; the worker's
// heartbeat throttle decides how often they reach the server.
const liveEvery = 100 * time.Millisecond

// liveTail keeps the last LiveTailBytes of a stream and its length.
type liveTail struct {
	mu    sync.Mutex
	buf   []byte
	total int64
}

func (l *liveTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total += int64(len(p))
	if len(p) >= LiveTailBytes {
		l.buf = append(l.buf[:0], p[len(p)-LiveTailBytes:]...)
		return len(p), nil
	}
	l.buf = append(l.buf, p...)
	if len(l.buf) > 2*LiveTailBytes {
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-LiveTailBytes:]...)
	}
	return len(p), nil
}

// progress is a snapshot for a heartbeat.
func (l *liveTail) progress(callID string) ExecProgress {
	l.mu.Lock()
	defer l.mu.Unlock()
	tail := l.buf
	if len(tail) > LiveTailBytes {
		tail = tail[len(tail)-LiveTailBytes:]
	}
	return ExecProgress{CallID: callID, Total: l.total, Offset: l.total - int64(len(tail)), Tail: append([]byte(nil), tail...)}
}

func (l *liveTail) written() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}
