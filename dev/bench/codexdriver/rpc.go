package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// peer is a JSON-RPC 2.0 peer over a child process's stdin and stdout,
// one message a line: how both `codex mcp-server` and `codex app-server`
// speak over stdio.
type peer struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	wmu     sync.Mutex
	mu      sync.Mutex
	next    int
	pending map[int]chan reply
	// watch gets every notification with its arrival time.
	watch func(method string, params json.RawMessage, at time.Time)
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type message struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	reply
}

func startPeer(stderr io.Writer, env []string, dir string, name string, args ...string) (*peer, error) {
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir, cmd.Stderr = env, dir, stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin of %s: %w", name, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdout of %s: %w", name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &peer{cmd: cmd, in: in, pending: map[int]chan reply{}}
	go p.read(out)
	return p, nil
}

func (p *peer) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		at := time.Now()
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			fmt.Fprintf(os.Stderr, "codexdriver: unreadable line: %.200s\n", sc.Text())
			continue
		}
		switch {
		case m.ID != nil && m.Method != "":
			// A request to the client (an approval, an elicitation): the
			// scripts ask for none, so refuse it.
			p.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not supported by the benchmark"}})
		case m.ID != nil:
			var id int
			_ = json.Unmarshal(*m.ID, &id)
			p.mu.Lock()
			ch := p.pending[id]
			delete(p.pending, id)
			p.mu.Unlock()
			if ch != nil {
				ch <- m.reply
			}
		default:
			if p.watch != nil {
				p.watch(m.Method, m.Params, at)
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, ch := range p.pending {
		close(ch)
		delete(p.pending, id)
	}
}

func (p *peer) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err = p.in.Write(append(b, '\n'))
	return err
}

// call sends a request and waits for its answer, decoding the result into out.
func (p *peer) call(method string, params, out any) error {
	p.mu.Lock()
	p.next++
	id := p.next
	ch := make(chan reply, 1)
	p.pending[id] = ch
	p.mu.Unlock()
	if err := p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: the process closed its output", method)
		}
		if r.Error != nil {
			return fmt.Errorf("%s: error %d: %s", method, r.Error.Code, r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-time.After(10 * time.Minute):
		return fmt.Errorf("%s: no answer in 10 minutes", method)
	}
}

func (p *peer) notify(method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	return p.send(m)
}

func (p *peer) close() {
	_ = p.in.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}
