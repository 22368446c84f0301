package appserver

import (
	"encoding/base64"
	"encoding/json"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// The streaming form of command/exec: with tty, streamStdin or
// streamStdoutStderr and a client-chosen processId, the process is the
// connection's until it exits. command/exec/write types into it,
// command/exec/resize sizes its terminal, command/exec/terminate ends it,
// and its output comes as command/exec/outputDelta notifications; the
// command/exec request itself is answered when it exits (with the output
// that was not streamed). A connection that closes ends its processes.

// ExecStream is a running streamed command/exec process.
type ExecStream interface {
	// Write sends bytes to its stdin (its terminal with tty).
	Write(p []byte) error
	CloseStdin() error
	Resize(rows, cols int) error
	// Terminate kills it and everything it started.
	Terminate()
	// Done is closed once it has exited; Result is then its outcome.
	Done() <-chan struct{}
	Result() ExecResult
}

// StreamOptions are the streaming parts of a command/exec request.
type StreamOptions struct {
	TTY        bool
	Stdin      bool
	Rows, Cols int
	// Output receives streamed output ("stdout" or "stderr"); capReached
	// marks the last chunk of a stream cut by the output cap. nil: the
	// output is buffered for the response.
	Output func(stream string, p []byte, capReached bool)
}

type terminalSize struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
}

// streamed starts a streamed command/exec (see [conn.commandExec]).
func (c *conn) streamed(id json.RawMessage, p commandExecParams, r ExecRequest) (*result, error) {
	if p.ProcessID == nil || *p.ProcessID == "" {
		return nil, invalidRequest("processId is required for tty, streamStdin and streamStdoutStderr")
	}
	if p.Size != nil && !p.TTY {
		return nil, invalidRequest("size is only valid when tty is true")
	}
	pid := *p.ProcessID
	o := StreamOptions{TTY: p.TTY, Stdin: p.TTY || p.StreamStdin}
	if p.Size != nil {
		o.Rows, o.Cols = p.Size.Rows, p.Size.Cols
	}
	if p.TTY || p.StreamStdoutStderr {
		o.Output = func(stream string, b []byte, capReached bool) {
			c.notify(notice(protocol.CommandExecOutputDelta{
				ProcessID: pid, Stream: stream, DeltaBase64: base64.StdEncoding.EncodeToString(b), CapReached: capReached}))
		}
	}
	c.mu.Lock()
	if c.execs == nil {
		c.execs = map[string]ExecStream{}
	}
	if _, busy := c.execs[pid]; busy {
		c.mu.Unlock()
		return nil, invalidRequest("processId %q is already in use by a running command", pid)
	}
	c.execs[pid] = nil // reserved while it starts
	c.mu.Unlock()
	proc, err := c.s.backend.StartExec(c.ctx, r, o)
	if err != nil {
		c.mu.Lock()
		delete(c.execs, pid)
		c.mu.Unlock()
		return nil, asRequestError(err)
	}
	c.mu.Lock()
	c.execs[pid] = proc
	c.mu.Unlock()
	c.background(func() {
		select {
		case <-proc.Done():
		case <-c.ctx.Done():
			proc.Terminate()
			<-proc.Done()
		}
		c.mu.Lock()
		delete(c.execs, pid)
		c.mu.Unlock()
		res := proc.Result()
		c.respond(id, protocol.CommandExecResponse{ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr})
	})
	return nil, nil
}

// running is the connection's process pid, or the request's error.
func (c *conn) running(pid string) (ExecStream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.execs[pid]; p != nil {
		return p, nil
	}
	return nil, invalidRequest("no running command/exec process has processId %q", pid)
}

func (c *conn) commandExecWrite(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		ProcessID   string  `json:"processId"`
		DeltaBase64 *string `json:"deltaBase64"`
		CloseStdin  bool    `json:"closeStdin"`
	}
	if err := decodeParams(raw, &p, "processId"); err != nil {
		return nil, err
	}
	proc, err := c.running(p.ProcessID)
	if err != nil {
		return nil, err
	}
	if p.DeltaBase64 != nil && *p.DeltaBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(*p.DeltaBase64)
		if err != nil {
			return nil, invalidRequest("deltaBase64 is not base64: %v", err)
		}
		if err := proc.Write(b); err != nil {
			return nil, invalidRequest("writing to process %q: %v", p.ProcessID, err)
		}
	}
	if p.CloseStdin {
		if err := proc.CloseStdin(); err != nil {
			return nil, invalidRequest("closing the stdin of process %q: %v", p.ProcessID, err)
		}
	}
	return &result{value: protocol.Empty{}}, nil
}

func (c *conn) commandExecResize(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		ProcessID string       `json:"processId"`
		Size      terminalSize `json:"size"`
	}
	if err := decodeParams(raw, &p, "processId", "size"); err != nil {
		return nil, err
	}
	proc, err := c.running(p.ProcessID)
	if err != nil {
		return nil, err
	}
	if p.Size.Rows <= 0 || p.Size.Cols <= 0 {
		return nil, invalidRequest("size.rows and size.cols must be positive")
	}
	if err := proc.Resize(p.Size.Rows, p.Size.Cols); err != nil {
		return nil, invalidRequest("resizing process %q: %v", p.ProcessID, err)
	}
	return &result{value: protocol.Empty{}}, nil
}

func (c *conn) commandExecTerminate(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		ProcessID string `json:"processId"`
	}
	if err := decodeParams(raw, &p, "processId"); err != nil {
		return nil, err
	}
	proc, err := c.running(p.ProcessID)
	if err != nil {
		return nil, err
	}
	proc.Terminate()
	return &result{value: protocol.Empty{}}, nil
}
