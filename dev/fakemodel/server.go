package fakemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxBodyBytes bounds a request body.
const maxBodyBytes = 64 << 20

// Recorded is one request the server received. Headers are not recorded,
// so API keys never are.
type Recorded struct {
	Seq  int             `json:"seq"`  // 1-based, in arrival order
	Path string          `json:"path"` // as requested, e.g. /v1/responses
	Body json.RawMessage `json:"body"` // the JSON body (a JSON string if the body was not JSON)
	// Turn and Step are the selected script position, -1 when none was
	// selected. Step may be past the end of the turn (the "done" answer).
	Turn    int  `json:"turn"`
	Step    int  `json:"step"`
	Status  int  `json:"status"`            // HTTP status answered (499: client went away)
	Dropped bool `json:"dropped,omitempty"` // the answer was cut off on purpose (drop_stream)
}

// Server answers model requests from a script. It is safe for concurrent
// use.
type Server struct {
	matches   []string // per turn, its Match
	steps     [][]Step // per turn, Repeat expanded
	scriptErr error
	itemsOnly bool // Script.ResponsesItemsOnly

	mu       sync.Mutex
	state    map[stepKey]*stepState
	requests []Recorded
	arrivals []string
	arrived  []time.Time // when each of arrivals came
	seq      int
}

// New returns a server for script; a nil script means [DemoScript]. An
// invalid script makes every model request answer 500 naming the problem
// (use [ParseScript] or [Script.Validate] to catch it earlier).
func New(script *Script) *Server {
	if script == nil {
		script = DemoScript()
	}
	s := &Server{state: map[stepKey]*stepState{}, itemsOnly: script.ResponsesItemsOnly}
	if s.scriptErr = script.Validate(); s.scriptErr == nil {
		for _, t := range script.Turns {
			s.matches = append(s.matches, t.Match)
			s.steps = append(s.steps, expandSteps(t.Steps))
		}
	}
	return s
}

// ServeHTTP routes model and control requests. A leading /v1 (even
// repeated) is ignored, so base URLs with or without /v1 work.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	for strings.HasPrefix(path, "/v1/") {
		path = path[len("/v1"):]
	}
	path = strings.TrimSuffix(path, "/")
	switch path {
	case "/responses":
		s.serveModel(w, r, responsesFormat{})
	case "/chat/completions":
		s.serveModel(w, r, chatFormat{})
	case "/messages":
		s.serveModel(w, r, anthropicFormat{})
	case "/_fake/requests":
		if r.Method != http.MethodGet {
			writeJSON(w, http.StatusMethodNotAllowed, openAIError(http.StatusMethodNotAllowed, "fakemodel: use GET"))
			return
		}
		writeJSON(w, http.StatusOK, s.Requests())
	case "/_fake/reset":
		if r.Method != http.MethodPost {
			writeJSON(w, http.StatusMethodNotAllowed, openAIError(http.StatusMethodNotAllowed, "fakemodel: use POST"))
			return
		}
		s.Reset()
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	case "/_fake/health":
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	default:
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
		msg := fmt.Sprintf("fakemodel: no route for %s %s", r.Method, r.URL.Path)
		seq := s.record(r.URL.Path, body, -1, -1, http.StatusNotFound, false)
		writeJSONWithID(w, http.StatusNotFound, openAIError(http.StatusNotFound, msg), seq)
	}
}

func (s *Server) serveModel(w http.ResponseWriter, r *http.Request, f wireFormat) {
	reject := func(body []byte, status int, msg string) {
		seq := s.record(r.URL.Path, body, -1, -1, status, false)
		writeJSONWithID(w, status, f.errorBody(status, msg), seq)
	}
	if r.Method != http.MethodPost {
		reject(nil, http.StatusMethodNotAllowed, "fakemodel: use POST")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		status := http.StatusBadRequest
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			status = http.StatusRequestEntityTooLarge
		}
		reject(body, status, "fakemodel: read request body: "+err.Error())
		return
	}
	if s.scriptErr != nil {
		reject(body, http.StatusInternalServerError, "fakemodel: invalid script: "+s.scriptErr.Error())
		return
	}
	q, err := f.parse(body)
	if err != nil {
		reject(body, http.StatusBadRequest, "fakemodel: invalid JSON body: "+err.Error())
		return
	}
	rep := s.selectReply(q.conv, body)
	s.noteArrival(body)
	if rep.delay > 0 {
		t := time.NewTimer(rep.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			s.record(r.URL.Path, body, rep.turn, rep.step, 499, false)
			return
		}
	}
	// Each case records before answering, so a client that has its answer
	// always finds its request recorded.
	switch s.decide(rep) {
	case outcomeFail:
		status := rep.failStatus
		seq := s.record(r.URL.Path, body, rep.turn, rep.step, status, false)
		w.Header().Set("Retry-After-Ms", "10")
		msg := fmt.Sprintf("fakemodel: scripted failure %d for turn %d step %d", status, rep.turn, rep.step)
		writeJSONWithID(w, status, f.errorBody(status, msg), seq)
	case outcomeDrop:
		seq := s.record(r.URL.Path, body, rep.turn, rep.step, http.StatusOK, true)
		writeAnswer(w, f, q, rep, seq, true)
	default:
		seq := s.record(r.URL.Path, body, rep.turn, rep.step, http.StatusOK, false)
		writeAnswer(w, f, q, rep, seq, false)
	}
}

// writeAnswer sends the answer, streaming or not; cut sends only part of it
// and then aborts the connection.
func writeAnswer(w http.ResponseWriter, f wireFormat, q request, rep reply, seq int, cut bool) {
	setRequestID(w, seq)
	if !q.stream {
		data := []byte(marshalNoEscape(f.message(q, rep)))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		if cut {
			_, _ = w.Write(data[:len(data)/2])
			abort(w)
			return
		}
		_, _ = w.Write(data)
		return
	}
	evs := f.events(q, rep)
	if cut {
		evs = evs[:max((len(evs)-1)/2, 1)]
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for i, ev := range evs {
		if i > 0 && rep.chunkDelay > 0 {
			time.Sleep(rep.chunkDelay)
		}
		var buf bytes.Buffer
		if ev.name != "" {
			fmt.Fprintf(&buf, "event: %s\n", ev.name)
		}
		fmt.Fprintf(&buf, "data: %s\n\n", ev.data)
		if _, err := w.Write(buf.Bytes()); err != nil {
			return // client went away
		}
		_ = rc.Flush()
	}
	if cut {
		abort(w)
	}
}

// abort flushes what was written and closes the connection without ending
// the response properly. Where the connection cannot be hijacked (HTTP/2)
// it panics with http.ErrAbortHandler, which net/http turns into a quiet
// stream reset.
func abort(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	conn, _, err := rc.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

func setRequestID(w http.ResponseWriter, seq int) {
	id := "req_fake_" + strconv.Itoa(seq)
	w.Header().Set("X-Request-Id", id)
	w.Header().Set("Request-Id", id)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, marshalNoEscape(v)+"\n")
}

func writeJSONWithID(w http.ResponseWriter, status int, v any, seq int) {
	setRequestID(w, seq)
	writeJSON(w, status, v)
}

// record appends a request and returns its sequence number.
func (s *Server) record(path string, body []byte, turn, step, status int, dropped bool) int {
	raw := json.RawMessage(bytes.Clone(body))
	if !json.Valid(body) {
		raw = json.RawMessage(marshalNoEscape(string(body)))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.requests = append(s.requests, Recorded{
		Seq: s.seq, Path: path, Body: raw, Turn: turn, Step: step, Status: status, Dropped: dropped,
	})
	return s.seq
}

// Requests returns a copy of the recorded requests, oldest first.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded{}, s.requests...)
}

// LastRequest returns the most recent recorded request.
func (s *Server) LastRequest() (Recorded, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return Recorded{}, false
	}
	return s.requests[len(s.requests)-1], true
}

// LastRequestContains reports whether the most recent request body
// contains substr (in its JSON text).
func (s *Server) LastRequestContains(substr string) bool {
	last, ok := s.LastRequest()
	return ok && bytes.Contains(last.Body, []byte(substr))
}

// RequestsContaining returns the recorded requests whose body contains
// substr.
func (s *Server) RequestsContaining(substr string) []Recorded {
	var out []Recorded
	for _, rec := range s.Requests() {
		if bytes.Contains(rec.Body, []byte(substr)) {
			out = append(out, rec)
		}
	}
	return out
}

// Reset clears the recorded requests and the failure/drop counters.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.seq = nil, 0
	s.state = map[stepKey]*stepState{}
}

// noteArrival remembers a request as soon as it is parsed, before any
// scripted delay, so a test can act while a model call is in flight.
func (s *Server) noteArrival(body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrivals = append(s.arrivals, string(body))
	s.arrived = append(s.arrived, time.Now())
}

// ArrivalTimes are when the requests whose body contains substr arrived
// (answered or not), oldest first.
func (s *Server) ArrivalTimes(substr string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Time
	for i, b := range s.arrivals {
		if strings.Contains(b, substr) {
			out = append(out, s.arrived[i])
		}
	}
	return out
}

// ArrivalsContaining counts the requests received so far (answered or
// not) whose body contains substr.
func (s *Server) ArrivalsContaining(substr string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, b := range s.arrivals {
		if strings.Contains(b, substr) {
			n++
		}
	}
	return n
}
