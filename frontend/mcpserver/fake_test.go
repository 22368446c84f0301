package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// fakeTurn is a scripted turn: its events, its result, and optionally a
// gate that holds it running until released or interrupted.
type fakeTurn struct {
	threadID string
	events   []workflows.Event
	result   workflows.TurnResult
	gate     chan struct{}
	// live are the successive answers of its live-output reader; Follow
	// holds the turn after event number holdAfter until the poller asked
	// for more (drained).
	live      [][]threads.LiveChunk
	drained   chan struct{}
	holdAfter int
	// ended is closed when a Follow of the turn saw its end.
	ended  chan struct{}
	isOver bool
}

// fakeBackend is an in-memory Backend. plan scripts the turn a prompt
// starts.
type fakeBackend struct {
	plan func(prompt string) *fakeTurn

	mu         sync.Mutex
	threads    map[string][]string // thread -> turn ids
	turns      map[string]*fakeTurn
	running    map[string]string // thread -> running turn
	newArgs    []CodexArgs
	prompts    []string
	interrupts []string
	decisions  []workflows.ApprovalDecision
	started    chan string // turn ids as they start
}

func (f *fakeBackend) Decide(_ context.Context, d workflows.ApprovalDecision) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decisions = append(f.decisions, d)
	// The turn waited for this decision: let it end.
	if t := f.turns[f.running[d.ThreadID]]; t != nil && t.gate != nil {
		close(t.gate)
		t.gate = nil
	}
	return nil
}

func newFakeBackend(plan func(prompt string) *fakeTurn) *fakeBackend {
	return &fakeBackend{plan: plan, threads: map[string][]string{}, turns: map[string]*fakeTurn{},
		running: map[string]string{}, started: make(chan string, 16)}
}

// completedTurn is a turn that ran a command and answered.
func completedTurn(answer string) *fakeTurn {
	exit := 0
	cmd := &workflows.Item{ID: "item_1", Type: workflows.ItemCommandExecution, Command: "echo hi", Cwd: "/w", Status: workflows.StatusInProgress}
	done := *cmd
	done.Status, done.ExitCode, done.AggregatedOutput, done.DurationMs = workflows.StatusCompleted, &exit, "hi\n", 1500
	return &fakeTurn{
		events: []workflows.Event{
			{Type: workflows.EventTurnStarted},
			{Type: workflows.EventItemStarted, Item: cmd},
			{Type: workflows.EventItemCompleted, Item: &done},
			{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_2", Type: workflows.ItemAgentMessage, Text: answer}},
			{Type: workflows.EventTurnCompleted},
		},
		result: workflows.TurnResult{Status: workflows.StatusCompleted, FinalMessage: answer},
	}
}

func (f *fakeBackend) start(threadID, prompt string) Started {
	t := f.plan(prompt)
	n := len(f.threads[threadID]) + 1
	id := workflows.TurnWorkflowID(threadID, n)
	t.threadID = threadID
	t.ended = make(chan struct{})
	t.result.TurnID, t.result.Number = id, n
	for i := range t.events {
		t.events[i].Seq, t.events[i].TurnID = i+1, id
	}
	f.threads[threadID] = append(f.threads[threadID], id)
	f.turns[id] = t
	f.running[threadID] = id
	f.prompts = append(f.prompts, prompt)
	f.started <- id
	return Started{ThreadID: threadID, TurnID: id, Config: workflows.ThreadConfig{Model: "fake-model", Cwd: "/w", SandboxMode: "read-only", ApprovalPolicy: "never"}}
}

func (f *fakeBackend) NewThread(_ context.Context, args CodexArgs) (Started, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.newArgs = append(f.newArgs, args)
	return f.start(fmt.Sprintf("thread-%d", len(f.threads)+1), args.Prompt), nil
}

func (f *fakeBackend) Reply(_ context.Context, threadID, prompt string) (Started, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.threads[threadID]; !ok {
		return Started{}, fmt.Errorf("%w: %s", threads.ErrThreadNotFound, threadID)
	}
	if id := f.running[threadID]; id != "" {
		return Started{}, &BusyError{ThreadID: threadID, TurnID: id}
	}
	return f.start(threadID, prompt), nil
}

func (f *fakeBackend) turn(id string) *fakeTurn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.turns[id]
}

func (f *fakeBackend) Follow(ctx context.Context, turnID string, fn func(workflows.Event)) (*workflows.TurnResult, error) {
	t := f.turn(turnID)
	if t == nil {
		return nil, fmt.Errorf("no turn %s", turnID)
	}
	last := len(t.events) - 1 // the end event waits for the gate
	for _, e := range t.events[:last] {
		fn(e)
		if e.Seq == t.holdAfter && t.drained != nil {
			select {
			case <-t.drained:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	f.mu.Lock()
	gate := t.gate
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	fn(t.events[last])
	f.mu.Lock()
	if f.running[t.threadID] == turnID {
		delete(f.running, t.threadID)
	}
	if !t.isOver {
		t.isOver = true
		close(t.ended)
	}
	f.mu.Unlock()
	return nil, nil
}

// Outcome answers once the turn ended, as the real one does.
func (f *fakeBackend) Outcome(ctx context.Context, turnID string) (workflows.TurnResult, error) {
	t := f.turn(turnID)
	select {
	case <-t.ended:
	case <-ctx.Done():
		return workflows.TurnResult{}, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return t.result, nil
}

func (f *fakeBackend) Interrupt(_ context.Context, threadID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.interrupts = append(f.interrupts, threadID)
	if t := f.turns[f.running[threadID]]; t != nil && t.gate != nil {
		t.result.Status = workflows.StatusInterrupted
		close(t.gate)
		t.gate = nil
	}
	return nil
}

func (f *fakeBackend) Live(turnID string) LiveReader {
	t := f.turn(turnID)
	if t == nil || t.live == nil {
		return nil
	}
	return &fakeLive{f: f, t: t}
}

// fakeLive answers polls with the turn's scripted live output.
type fakeLive struct {
	f *fakeBackend
	t *fakeTurn
	n int
}

func (l *fakeLive) Poll(context.Context) ([]threads.LiveChunk, error) {
	l.f.mu.Lock()
	defer l.f.mu.Unlock()
	if l.n >= len(l.t.live) {
		// Polled past the script: the poller sent all it had.
		if l.n == len(l.t.live) {
			close(l.t.drained)
			l.n++
		}
		return nil, nil
	}
	out := l.t.live[l.n]
	l.n++
	return out, nil
}

// release lets a gated turn end as scripted.
func (f *fakeBackend) release(turnID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t := f.turns[turnID]; t != nil && t.gate != nil {
		close(t.gate)
		t.gate = nil
	}
}

func (f *fakeBackend) interrupted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.interrupts...)
}

// notice is a notification the test client received.
type notice struct {
	Method string
	Params map[string]any
}

// recorder wraps the client's transport and keeps the server's
// notifications, which the SDK client does not surface for codex/event.
type recorder struct {
	inner mcp.Transport
	mu    sync.Mutex
	seen  []notice
}

func (r *recorder) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, r: r}, nil
}

func (r *recorder) notices(method string) []notice {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []notice
	for _, n := range r.seen {
		if n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

type recordingConn struct {
	mcp.Connection
	r *recorder
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if req, ok := m.(*jsonrpc.Request); ok && !req.IsCall() {
		var p map[string]any
		_ = json.Unmarshal(req.Params, &p)
		c.r.mu.Lock()
		c.r.seen = append(c.r.seen, notice{req.Method, p})
		c.r.mu.Unlock()
	}
	return m, err
}

// harness is a server over a fake backend and a connected SDK client.
type harness struct {
	t       *testing.T
	backend *fakeBackend
	rec     *recorder
	client  *mcp.ClientSession
	cwd     string
}

func newHarness(t *testing.T, plan func(string) *fakeTurn) *harness {
	t.Helper()
	return newHarnessWithClient(t, plan, nil)
}

// newHarnessWithClient is newHarness with client options (an elicitation
// handler, say).
func newHarnessWithClient(t *testing.T, plan func(string) *fakeTurn, opts *mcp.ClientOptions) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t, backend: newFakeBackend(plan), cwd: t.TempDir()}
	srv := New(h.backend, Options{Version: "test", Cwd: h.cwd})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	h.rec = &recorder{inner: ct}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	h.client, err = c.Connect(ctx, h.rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.client.Close(); _ = ss.Close() })
	return h
}

func (h *harness) call(ctx context.Context, tool string, args any) *mcp.CallToolResult {
	h.t.Helper()
	res, err := h.client.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		h.t.Fatalf("calling %s: %v", tool, err)
	}
	return res
}

// eventTypes are the msg types of the codex/event notifications so far.
func (h *harness) eventTypes() []string {
	var out []string
	for _, n := range h.rec.notices("codex/event") {
		m, _ := n.Params["msg"].(map[string]any)
		typ, _ := m["type"].(string)
		out = append(out, typ)
	}
	return out
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func structured(t *testing.T, res *mcp.CallToolResult) Result {
	t.Helper()
	var r Result
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return r
}
