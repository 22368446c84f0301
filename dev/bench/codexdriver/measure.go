package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"sync"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// samples are one measurement's figures in milliseconds.
type samples []float64

func (s samples) pct(p int) float64 {
	if len(s) == 0 {
		return 0
	}
	c := append(samples(nil), s...)
	sort.Float64s(c)
	i := (len(c)*p + 99) / 100
	if i < 1 {
		i = 1
	}
	return c[i-1]
}

func (s samples) mean() float64 {
	var sum float64
	for _, x := range s {
		sum += x
	}
	return sum / float64(max(len(s), 1))
}

func (s samples) line(name string) string {
	return fmt.Sprintf("%.1f ms/%s %.1f ms/%s-p50", s.mean(), name, s.pct(50), name)
}

// mcp: a `codex` call whose turn takes 3 steps (two commands, then the
// answer), then a one-step `codex-reply`, as BenchmarkMCPCodexAndReply.
func (b *bench) mcp() error {
	e, err := b.env(&fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "reply", Steps: []fakemodel.Step{{Text: "replied"}}},
		{Steps: []fakemodel.Step{b.shellStep(2, 0), {Text: "done"}}},
	}})
	if err != nil {
		return err
	}
	defer e.close()
	p, err := startPeer(e.log, e.vars, e.cwd, b.codex, "mcp-server")
	if err != nil {
		return err
	}
	defer p.close()
	if err := p.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "codexdriver", "version": "0"}}, nil); err != nil {
		return err
	}
	if err := p.notify("notifications/initialized", nil); err != nil {
		return err
	}
	call := func(tool string, args map[string]any) (string, error) {
		var res struct {
			IsError           bool              `json:"isError"`
			StructuredContent map[string]any    `json:"structuredContent"`
			Content           []json.RawMessage `json:"content"`
		}
		if err := p.call("tools/call", map[string]any{"name": tool, "arguments": args}, &res); err != nil {
			return "", err
		}
		if res.IsError {
			return "", fmt.Errorf("%s failed: %s", tool, res.Content)
		}
		for _, k := range []string{"threadId", "conversationId"} {
			if id, ok := res.StructuredContent[k].(string); ok {
				return id, nil
			}
		}
		return "", fmt.Errorf("%s: no thread id in %v", tool, res.StructuredContent)
	}
	codexArgs := map[string]any{"prompt": "three steps", "cwd": e.cwd, "approval-policy": "never", "sandbox": "danger-full-access"}
	var codex, reply samples
	for i := 0; i <= b.rounds; i++ { // round 0 warms up
		t0 := time.Now()
		id, err := call("codex", codexArgs)
		if err != nil {
			return err
		}
		c := since(t0)
		t1 := time.Now()
		if _, err := call("codex-reply", map[string]any{"threadId": id, "prompt": "reply"}); err != nil {
			return err
		}
		if i > 0 {
			codex, reply = append(codex, c), append(reply, since(t1))
		}
	}
	if err := b.checkTool(e); err != nil {
		return err
	}
	fmt.Printf("mcp %s %s\n", codex.line("codex"), reply.line("reply"))
	return nil
}

// appClient is `codex app-server` with its notifications routed by thread.
type appClient struct {
	*peer
	mu     sync.Mutex
	byThrd map[string]chan note
}

type note struct {
	method string
	params json.RawMessage
	at     time.Time
}

func (b *bench) startAppServer(e *env) (*appClient, error) {
	p, err := startPeer(e.log, e.vars, e.cwd, b.codex, "app-server")
	if err != nil {
		return nil, err
	}
	c := &appClient{peer: p, byThrd: map[string]chan note{}}
	p.watch = func(method string, params json.RawMessage, at time.Time) {
		var t struct {
			ThreadID string `json:"threadId"`
		}
		_ = json.Unmarshal(params, &t)
		c.mu.Lock()
		ch := c.byThrd[t.ThreadID]
		c.mu.Unlock()
		if ch != nil {
			select {
			case ch <- note{method, params, at}:
			default: // a thread's backlog past its buffer: nothing the figures read
			}
		}
	}
	if err := p.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "codexdriver", "version": "0"}}, nil); err != nil {
		p.close()
		return nil, err
	}
	if err := p.notify("initialized", nil); err != nil {
		p.close()
		return nil, err
	}
	return c, nil
}

func (c *appClient) threadStart(cwd string) (string, chan note, error) {
	var res struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := c.call("thread/start", map[string]any{"cwd": cwd, "approvalPolicy": "never", "sandbox": "danger-full-access"}, &res); err != nil {
		return "", nil, err
	}
	ch := make(chan note, 4096)
	c.mu.Lock()
	c.byThrd[res.Thread.ID] = ch
	c.mu.Unlock()
	return res.Thread.ID, ch, nil
}

// turn runs one turn and returns the time to its first item other than
// the user's message and to turn/completed, from the turn/start request.
func (c *appClient) turn(thread string, ch chan note, prompt string) (first, done float64, err error) {
	t0 := time.Now()
	if err := c.call("turn/start", map[string]any{"threadId": thread, "input": []any{map[string]any{"type": "text", "text": prompt}}}, nil); err != nil {
		return 0, 0, err
	}
	for {
		select {
		case n := <-ch:
			ms := float64(n.at.Sub(t0).Microseconds()) / 1000
			switch n.method {
			case "item/started":
				var p struct {
					Item struct {
						Type string `json:"type"`
					} `json:"item"`
				}
				_ = json.Unmarshal(n.params, &p)
				if first == 0 && p.Item.Type != "userMessage" {
					first = ms
				}
			case "turn/completed":
				var p struct {
					Turn struct {
						Status string `json:"status"`
					} `json:"turn"`
				}
				_ = json.Unmarshal(n.params, &p)
				if p.Turn.Status != "completed" {
					return first, ms, fmt.Errorf("turn %s", p.Turn.Status)
				}
				return first, ms, nil
			}
		case <-time.After(5 * time.Minute):
			return first, 0, fmt.Errorf("no turn/completed in 5 minutes")
		}
	}
}

// appServer: a fresh thread's 3-step turn, then a one-step continuation
// turn on it.
func (b *bench) appServer() error {
	e, err := b.env(&fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "reply", Steps: []fakemodel.Step{{Text: "replied"}}},
		{Steps: []fakemodel.Step{b.shellStep(2, 0), {Text: "done"}}},
	}})
	if err != nil {
		return err
	}
	defer e.close()
	c, err := b.startAppServer(e)
	if err != nil {
		return err
	}
	defer c.close()
	var start, turn, firstItem, next samples
	for i := 0; i <= b.rounds; i++ {
		t0 := time.Now()
		id, ch, err := c.threadStart(e.cwd)
		if err != nil {
			return err
		}
		s := since(t0)
		first, done, err := c.turn(id, ch, "three steps")
		if err != nil {
			return err
		}
		_, cont, err := c.turn(id, ch, "reply")
		if err != nil {
			return err
		}
		if i > 0 {
			start, turn, firstItem, next = append(start, s), append(turn, done), append(firstItem, first), append(next, cont)
		}
	}
	if err := b.checkTool(e); err != nil {
		return err
	}
	fmt.Printf("appserver %s %s %s %s\n", start.line("thread-start"), turn.line("turn"), firstItem.line("first-item"), next.line("continuation"))
	return nil
}

// step: the cost of one `bash -lc` tool step, from a 20-step turn (19
// commands, then the answer) and a one-step turn on fresh threads.
func (b *bench) step() error {
	e, err := b.env(&fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "one step", Steps: []fakemodel.Step{{Text: "done"}}},
		{Steps: []fakemodel.Step{b.shellStep(19, 0), {Text: "done"}}},
	}})
	if err != nil {
		return err
	}
	defer e.close()
	c, err := b.startAppServer(e)
	if err != nil {
		return err
	}
	defer c.close()
	var long, short samples
	for i := 0; i <= b.rounds; i++ {
		for _, prompt := range []string{"twenty steps", "one step"} {
			id, ch, err := c.threadStart(e.cwd)
			if err != nil {
				return err
			}
			_, done, err := c.turn(id, ch, prompt)
			if err != nil {
				return err
			}
			if i == 0 {
				continue
			}
			if prompt == "one step" {
				short = append(short, done)
			} else {
				long = append(long, done)
			}
		}
	}
	if err := b.checkTool(e); err != nil {
		return err
	}
	fmt.Printf("step %.1f ms/step (20-step turn %.1f ms p50, 1-step turn %.1f ms p50)\n",
		(long.pct(50)-short.pct(50))/19, long.pct(50), short.pct(50))
	return nil
}

// concurrent: n threads at once through one app-server, each one 5-step
// turn (four commands, then the answer), every model call answered after
// modelMs, as BenchmarkConcurrentThreads.
func (b *bench) concurrent(n, modelMs int) error {
	e, err := b.env(&fakemodel.Script{Turns: []fakemodel.Turn{
		{Steps: []fakemodel.Step{b.shellStep(4, modelMs), {Text: "done", DelayMs: modelMs}}},
	}})
	if err != nil {
		return err
	}
	defer e.close()
	c, err := b.startAppServer(e)
	if err != nil {
		return err
	}
	defer c.close()
	type started struct {
		id string
		ch chan note
	}
	var ts []started
	for range n { // threads first: the figures are of the turns
		id, ch, err := c.threadStart(e.cwd)
		if err != nil {
			return err
		}
		ts = append(ts, started{id, ch})
	}
	var mu sync.Mutex
	var first samples
	var failed int
	var wg sync.WaitGroup
	begin := time.Now()
	for _, t := range ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, _, err := c.turn(t.id, t.ch, "five steps")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				return
			}
			first = append(first, f)
		}()
	}
	wg.Wait()
	wall := time.Since(begin).Seconds()
	if err := b.checkTool(e); err != nil {
		return err
	}
	fmt.Printf("concurrent N=%d %.3f turns/s %.0f first-p50-ms %.0f first-p95-ms %d failed\n", n, float64(n)/wall, first.pct(50), first.pct(95), failed)
	return nil
}

func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return string(out), err
}
