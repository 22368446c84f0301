package appserver

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// fakeBackend is an in-memory Backend for the protocol tests: threads and
// turns whose events the test writes. (The real one, over Temporal, is
// tested end to end with the built binary.)
type fakeBackend struct {
	mu      sync.Mutex
	changed chan struct{}
	threads map[string]*fakeThread
	turns   map[string]*fakeTurn
	n       int

	// injected are the entries of thread/inject_items (threadops_test.go).
	injected []workflows.Entry

	// interrupts counts Interrupt calls; an interrupted running turn ends
	// as interrupted.
	interrupts int
	// autoEnd, when set, ends every turn started with these events.
	autoEnd func(turnID string) []workflows.Event
	execs   []ExecRequest
	// decisions and answers delivered, steers taken.
	decisions []workflows.ApprovalDecision
	answers   []workflows.DynamicAnswer
	steers    []string
	settings  []ThreadSettings
	requests  []workflows.StartTurnRequest
	// startGates hold StartTurn on a thread until closed (concurrent_test.go).
	startGates map[string]chan struct{}
}

type fakeThread struct {
	info ThreadInfo
	view workflows.ThreadView
}

type fakeTurn struct {
	threadID  string
	prompt    string
	events    []workflows.Event
	result    *workflows.TurnResult
	approvals []workflows.Approval
	dynamic   []workflows.DynamicCall
	// live is the live output not polled yet.
	live []threads.LiveChunk
}

func newFakeBackend() *fakeBackend {
	return &fakeBackend{changed: make(chan struct{}), threads: map[string]*fakeThread{}, turns: map[string]*fakeTurn{}}
}

// broadcast wakes followers; call with mu held.
func (b *fakeBackend) broadcast() {
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *fakeBackend) NewThread(_ context.Context, s ThreadSettings) (ThreadInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.ModelProvider == "nope" {
		return ThreadInfo{}, &SettingsError{Err: fmt.Errorf("unknown model provider %q", s.ModelProvider)}
	}
	b.n++
	id := fmt.Sprintf("thread-%d", b.n)
	b.settings = append(b.settings, s)
	cfg := workflows.ThreadConfig{DynamicTools: s.DynamicTools, Model: orDefault(s.Model, "fake-model"), Provider: workflows.ProviderSpec{ID: orDefault(s.ModelProvider, "fake")},
		Cwd: orDefault(s.Cwd, "/work"), SandboxMode: orDefault(s.SandboxMode, "workspace-write"), ApprovalPolicy: orDefault(s.ApprovalPolicy, "on-request"),
		BaseInstructions: s.BaseInstructions, DeveloperInstructions: s.DeveloperInstructions}
	now := time.Unix(1_800_000_000+int64(b.n), 0)
	t := &fakeThread{info: ThreadInfo{ID: id, Config: cfg, CreatedAt: now, UpdatedAt: now},
		view: workflows.ThreadView{ThreadID: id, Config: cfg}}
	b.threads[id] = t
	return t.snapshot(), nil
}

func (t *fakeThread) snapshot() ThreadInfo {
	info := t.info
	v := t.view
	v.Turns = append([]workflows.TurnResult(nil), t.view.Turns...)
	info.View = &v
	return info
}

func (b *fakeBackend) Thread(_ context.Context, id string) (ThreadInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.threads[id]
	if t == nil {
		return ThreadInfo{}, fmt.Errorf("%w: %s", threads.ErrThreadNotFound, id)
	}
	return t.snapshot(), nil
}

func (b *fakeBackend) ListThreads(_ context.Context, q ListQuery) (ThreadPage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var all []ThreadInfo
	for _, t := range b.threads {
		if t.info.Archived != q.Archived {
			continue
		}
		all = append(all, t.info)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].CreatedAt.After(all[j].CreatedAt) })
	start := 0
	if q.Cursor != "" {
		n, err := strconv.Atoi(q.Cursor)
		if err != nil {
			return ThreadPage{}, fmt.Errorf("bad cursor: %w", ErrInvalidCursor)
		}
		start = n
	}
	end := min(start+q.Limit, len(all))
	page := ThreadPage{Threads: all[start:end]}
	if end < len(all) {
		page.NextCursor = strconv.Itoa(end)
	}
	return page, nil
}

func (b *fakeBackend) StartTurn(ctx context.Context, threadID string, req workflows.StartTurnRequest) (workflows.StartTurnResponse, error) {
	b.mu.Lock()
	gate := b.startGates[threadID]
	b.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return workflows.StartTurnResponse{}, ctx.Err()
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.threads[threadID]
	if t == nil {
		return workflows.StartTurnResponse{}, fmt.Errorf("%w: %s", threads.ErrThreadNotFound, threadID)
	}
	if t.info.Archived {
		return workflows.StartTurnResponse{}, fmt.Errorf("%w: %s", threads.ErrThreadArchived, threadID)
	}
	if t.view.RunningTurn != "" {
		return workflows.StartTurnResponse{}, threads.Refusal(threads.ErrTurnRunning, fmt.Sprintf("update rejected: thread %s is running turn %s; wait for it to finish or interrupt it", threadID, t.view.RunningTurn))
	}
	b.requests = append(b.requests, req)
	c := &t.view.Config
	if req.Model != "" {
		c.Model = req.Model
	}
	if req.Cwd != "" {
		c.Cwd = req.Cwd
	}
	if req.SandboxMode != "" {
		c.SandboxMode = req.SandboxMode
	}
	if req.ApprovalPolicy != "" {
		c.ApprovalPolicy = req.ApprovalPolicy
	}
	t.info.Config = *c
	n := len(t.view.Turns) + 1
	id := workflows.TurnWorkflowID(threadID, n)
	t.view.RunningTurn = id
	b.turns[id] = &fakeTurn{threadID: threadID, prompt: req.Prompt}
	b.emitLocked(id, workflows.Event{Type: workflows.EventTurnStarted})
	if b.autoEnd != nil {
		evs := b.autoEnd(id)
		b.emitLocked(id, evs...)
		b.endLocked(id, workflows.StatusCompleted, "")
	}
	return workflows.StartTurnResponse{TurnID: id, Number: n}, nil
}

// emit appends events to a turn's log.
func (b *fakeBackend) emit(turnID string, evs ...workflows.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.emitLocked(turnID, evs...)
}

func (b *fakeBackend) emitLocked(turnID string, evs ...workflows.Event) {
	tu := b.turns[turnID]
	for _, e := range evs {
		e.Seq = len(tu.events) + 1
		e.TurnID = turnID
		tu.events = append(tu.events, e)
	}
	b.broadcast()
}

// end finishes a turn with a status, as its workflow would.
func (b *fakeBackend) end(turnID, status, errText string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.endLocked(turnID, status, errText)
}

func (b *fakeBackend) endLocked(turnID, status, errText string) {
	tu := b.turns[turnID]
	usage := workflows.Usage{InputTokens: 100, CachedInputTokens: 10, OutputTokens: 20}
	typ := workflows.EventTurnCompleted
	if status == workflows.StatusFailed {
		typ = workflows.EventTurnFailed
	}
	b.emitLocked(turnID, workflows.Event{Type: typ, Usage: &usage, Error: errText})
	res := workflows.TurnResult{TurnID: turnID, Number: turnNumber(turnID), Status: status, Error: errText, Usage: usage}
	tu.result = &res
	t := b.threads[tu.threadID]
	t.view.RunningTurn = ""
	t.view.Turns = append(t.view.Turns, res)
	t.view.Usage.Add(usage)
	b.broadcast()
}

func (b *fakeBackend) TurnLog(_ context.Context, turnID string) (TurnLog, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tu := b.turns[turnID]
	if tu == nil {
		return TurnLog{}, fmt.Errorf("no turn %s", turnID)
	}
	return TurnLog{Prompt: tu.prompt, Events: append([]workflows.Event(nil), tu.events...), Last: len(tu.events), Done: tu.result != nil}, nil
}

func (b *fakeBackend) Follow(ctx context.Context, turnID string, after int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
	for {
		b.mu.Lock()
		tu := b.turns[turnID]
		if tu == nil {
			b.mu.Unlock()
			return nil, fmt.Errorf("no turn %s", turnID)
		}
		evs := append([]workflows.Event(nil), tu.events...)
		var res *workflows.TurnResult
		if tu.result != nil {
			r := *tu.result
			res = &r
		}
		wait := b.changed
		b.mu.Unlock()
		for _, e := range evs {
			if e.Seq > after {
				fn(e)
				after = e.Seq
			}
		}
		if res != nil {
			// As the real one, mostly: the result comes with the end.
			return res, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wait:
		}
	}
}

func (b *fakeBackend) Outcome(ctx context.Context, turnID string) (workflows.TurnResult, error) {
	for {
		b.mu.Lock()
		tu := b.turns[turnID]
		wait := b.changed
		var res *workflows.TurnResult
		if tu != nil {
			res = tu.result
		}
		b.mu.Unlock()
		if tu == nil {
			return workflows.TurnResult{}, fmt.Errorf("no turn %s", turnID)
		}
		if res != nil {
			return *res, nil
		}
		select {
		case <-ctx.Done():
			return workflows.TurnResult{}, ctx.Err()
		case <-wait:
		}
	}
}

func (b *fakeBackend) Interrupt(_ context.Context, threadID string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.interrupts++
	t := b.threads[threadID]
	if t == nil {
		return fmt.Errorf("%w: %s", threads.ErrThreadNotFound, threadID)
	}
	if t.view.RunningTurn != "" {
		b.endLocked(t.view.RunningTurn, workflows.StatusInterrupted, "")
	}
	return nil
}

func (b *fakeBackend) ForkThread(ctx context.Context, sourceID string, s ThreadSettings) (ThreadInfo, error) {
	src, err := b.Thread(ctx, sourceID)
	if err != nil {
		return ThreadInfo{}, err
	}
	info, err := b.NewThread(ctx, ThreadSettings{Model: orDefault(s.Model, src.Config.Model), Cwd: orDefault(s.Cwd, src.Config.Cwd),
		ModelProvider: src.Config.Provider.ID, ApprovalPolicy: orDefault(s.ApprovalPolicy, src.Config.ApprovalPolicy),
		SandboxMode: orDefault(s.SandboxMode, src.Config.SandboxMode)})
	if err != nil {
		return info, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.threads[info.ID]
	t.info.ForkedFrom = sourceID
	t.info.Preview = src.Preview
	t.view.Transcript = src.View.Transcript
	return t.snapshot(), nil
}

func (b *fakeBackend) Models(context.Context) ([]ModelInfo, error) {
	return []ModelInfo{{ID: "fake-model", Provider: "fake", IsDefault: true}, {ID: "other", Provider: "fake"}}, nil
}

func (b *fakeBackend) Config(context.Context) (map[string]any, error) {
	return map[string]any{"model": "fake-model", "model_provider": "fake", "approval_policy": "on-request", "sandbox_mode": "workspace-write"}, nil
}

func (b *fakeBackend) Exec(_ context.Context, r ExecRequest) (ExecResult, error) {
	b.mu.Lock()
	b.execs = append(b.execs, r)
	b.mu.Unlock()
	return ExecResult{ExitCode: 3, Stdout: strings.Join(r.Command, " "), Stderr: "warn"}, nil
}

func (b *fakeBackend) StartExec(context.Context, ExecRequest, StreamOptions) (ExecStream, error) {
	return nil, fmt.Errorf("the fake backend streams no commands")
}

func (b *fakeBackend) Pending(_ context.Context, turnID string) (Pending, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tu := b.turns[turnID]
	if tu == nil {
		return Pending{}, fmt.Errorf("no turn %s", turnID)
	}
	return Pending{Approvals: append([]workflows.Approval(nil), tu.approvals...), Dynamic: append([]workflows.DynamicCall(nil), tu.dynamic...)}, nil
}

// requestApproval makes a running turn wait for an approval, as the
// workflow logs it.
func (b *fakeBackend) requestApproval(turnID string, a workflows.Approval, it *workflows.Item) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tu := b.turns[turnID]
	a.ThreadID, a.TurnID, a.ItemID = tu.threadID, turnID, it.ID
	tu.approvals = append(tu.approvals, a)
	w := *it
	w.Status = workflows.StatusAwaitingApproval
	b.emitLocked(turnID, workflows.Event{Type: workflows.EventApprovalRequested, Item: &w, Approval: &a})
}

func (b *fakeBackend) Decide(_ context.Context, turnID string, d workflows.ApprovalDecision) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	tu := b.turns[turnID]
	for i, a := range tu.approvals {
		if a.ItemID == d.ItemID && a.ThreadID == d.ThreadID {
			tu.approvals = append(tu.approvals[:i:i], tu.approvals[i+1:]...)
			b.decisions = append(b.decisions, d)
			a.Decision = d.Decision
			b.emitLocked(turnID, workflows.Event{Type: workflows.EventApprovalResolved, Item: &workflows.Item{ID: a.ItemID, Type: workflows.ItemCommandExecution}, Approval: &a})
			return nil
		}
	}
	return fmt.Errorf("decision refused: item %s is not waiting for approval", d.ItemID)
}

// resolveApproval resolves an approval without a client (a timeout).
func (b *fakeBackend) resolveApproval(turnID, itemID, decision string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tu := b.turns[turnID]
	for i, a := range tu.approvals {
		if a.ItemID == itemID {
			tu.approvals = append(tu.approvals[:i:i], tu.approvals[i+1:]...)
			a.Decision = decision
			b.emitLocked(turnID, workflows.Event{Type: workflows.EventApprovalResolved, Item: &workflows.Item{ID: a.ItemID, Type: workflows.ItemCommandExecution}, Approval: &a})
		}
	}
}

// callDynamic makes a running turn call a dynamic tool, as the workflow
// logs it.
func (b *fakeBackend) callDynamic(turnID, itemID, tool, args string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tu := b.turns[turnID]
	d := workflows.DynamicCall{ThreadID: tu.threadID, TurnID: turnID, ItemID: itemID, CallID: "call-" + itemID, Tool: tool, Arguments: args}
	for _, x := range b.threads[tu.threadID].view.Config.DynamicTools {
		if x.Name == tool {
			d.Namespace = x.Server
		}
	}
	tu.dynamic = append(tu.dynamic, d)
	it := &workflows.Item{ID: itemID, Type: workflows.ItemDynamicToolCall, Status: workflows.StatusInProgress, Dynamic: &d}
	b.emitLocked(turnID, workflows.Event{Type: workflows.EventItemStarted, Item: it}, workflows.Event{Type: workflows.EventDynamicRequested, Item: it})
}

func (b *fakeBackend) AnswerDynamic(_ context.Context, turnID string, a workflows.DynamicAnswer) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	tu := b.turns[turnID]
	for i, d := range tu.dynamic {
		if d.ItemID == a.ItemID {
			tu.dynamic = append(tu.dynamic[:i:i], tu.dynamic[i+1:]...)
			b.answers = append(b.answers, a)
			d.Resolved, d.Success, d.Content, d.Error, d.DurationMs = true, a.Success && a.Error == "", a.Content, a.Error, 5
			st := workflows.StatusCompleted
			if !d.Success {
				st = workflows.StatusFailed
			}
			b.emitLocked(turnID, workflows.Event{Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: d.ItemID, Type: workflows.ItemDynamicToolCall, Status: st, Dynamic: &d}})
			return nil
		}
	}
	return fmt.Errorf("answer refused: item %s is not waiting", a.ItemID)
}

func (b *fakeBackend) Steer(_ context.Context, threadID, turnID, prompt string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.threads[threadID]
	if t == nil || t.view.RunningTurn != turnID {
		return threads.Refusal(threads.ErrNoActiveTurn, "no active turn to steer")
	}
	b.steers = append(b.steers, prompt)
	b.emitLocked(turnID, workflows.Event{Type: workflows.EventItemCompleted,
		Item: &workflows.Item{ID: fmt.Sprintf("item_s%d", len(b.steers)), Type: workflows.ItemUserMessage, Text: prompt, Status: workflows.StatusCompleted}})
	return nil
}

func (b *fakeBackend) SetName(_ context.Context, threadID, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.threads[threadID]
	if t.info.Archived {
		return fmt.Errorf("%w: %s", threads.ErrThreadArchived, threadID)
	}
	t.info.Name = strings.TrimSpace(name)
	t.view.Name = t.info.Name
	return nil
}

func (b *fakeBackend) Archive(_ context.Context, threadID string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.threads[threadID]
	if t.view.RunningTurn != "" {
		return threads.Refusal(threads.ErrTurnRunning, fmt.Sprintf("update rejected: thread %s is running turn %s; wait for it to finish or interrupt it before archiving", threadID, t.view.RunningTurn))
	}
	t.info.Archived = true
	return nil
}

func (b *fakeBackend) Unarchive(_ context.Context, threadID string) (ThreadInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.threads[threadID]
	if !t.info.Archived {
		return ThreadInfo{}, threads.Refusal(threads.ErrNotArchived, fmt.Sprintf("thread %s is not archived", threadID))
	}
	t.info.Archived = false
	return t.snapshot(), nil
}

// stream queues live output of a turn for its next poll.
func (b *fakeBackend) stream(turnID string, chunks ...threads.LiveChunk) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tu := b.turns[turnID]
	tu.live = append(tu.live, chunks...)
}

func (b *fakeBackend) Live(turnID string) LiveReader { return fakeLive{b: b, turnID: turnID} }

// fakeLive hands out a turn's queued live output.
type fakeLive struct {
	b      *fakeBackend
	turnID string
}

func (l fakeLive) Poll(context.Context) ([]threads.LiveChunk, error) {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	tu := l.b.turns[l.turnID]
	if tu == nil {
		return nil, nil
	}
	out := tu.live
	tu.live = nil
	return out, nil
}
