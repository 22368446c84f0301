package appserver

import (
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
)

// transcript writes every message of every connection, one JSON line
// each: {"conn":N,"dir":"in"|"out","msg":...}. It is a debugging and test
// aid (what a client called, what the server sent), off unless
// Options.Transcript is set; it holds what the messages hold (prompts,
// command output), so it is only written where its user asked.
type transcript struct {
	mu    sync.Mutex
	w     io.Writer
	conns atomic.Int64
}

// transcriptLine is one line of a transcript.
type transcriptLine struct {
	Conn int64           `json:"conn"`
	Dir  string          `json:"dir"`
	Msg  json.RawMessage `json:"msg"`
}

// record writes one message; a message that is not JSON is recorded as a
// string.
func (t *transcript) record(conn int64, dir string, msg []byte) {
	if t == nil {
		return
	}
	raw := json.RawMessage(msg)
	if !json.Valid(msg) {
		raw, _ = json.Marshal(string(msg))
	}
	b, err := json.Marshal(transcriptLine{Conn: conn, Dir: dir, Msg: raw})
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.w.Write(append(b, '\n'))
}
