package appserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// StartExec runs command/exec's command in its streaming form in this
// process: in a pseudo-terminal (the one the unified-exec sessions use)
// with tty, else with pipes. Like the buffered form, the sandbox mode is
// not applied here yet.
func (a *TemporalBackend) StartExec(_ context.Context, r ExecRequest, o StreamOptions) (ExecStream, error) {
	if st, err := os.Stat(r.Cwd); err != nil || !st.IsDir() {
		return nil, &SettingsError{Err: fmt.Errorf("working directory %s does not exist", r.Cwd)}
	}
	p := &streamProc{done: make(chan struct{}), terms: a.Terminals}
	cmd := exec.Command(r.Command[0], r.Command[1:]...)
	cmd.Dir, cmd.Env = r.Cwd, commandEnv(r)
	stdout, stderr := p.sink("stdout", r.OutputCap, o), p.sink("stderr", r.OutputCap, o)
	var slave *os.File
	var readerDone chan struct{}
	if o.TTY {
		if a.Terminals == nil {
			return nil, &SettingsError{Err: errors.New("this server has no pseudo-terminals: run the command without tty")}
		}
		var err error
		if p.master, slave, err = a.Terminals.Open(o.Rows, o.Cols); err != nil {
			return nil, &SettingsError{Err: err}
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Pdeathsig: syscall.SIGKILL}
		p.stdin = p.master
	} else {
		cmd.Stdout, cmd.Stderr = stdout, stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if o.Stdin {
			w, err := cmd.StdinPipe()
			if err != nil {
				return nil, err
			}
			p.stdin = w
		}
	}
	err := cmd.Start()
	if slave != nil {
		_ = slave.Close()
	}
	if err != nil {
		if p.master != nil {
			_ = p.master.Close()
		}
		p.res = ExecResult{ExitCode: 127, Stderr: err.Error()}
		close(p.done)
		return p, nil
	}
	p.cmd = cmd
	if p.master != nil {
		readerDone = make(chan struct{})
		go func() { defer close(readerDone); _, _ = io.Copy(stdout, p.master) }()
	}
	go p.wait(r.Timeout, readerDone, stdout, stderr)
	return p, nil
}

// streamProc is one streamed command/exec process.
type streamProc struct {
	cmd    *exec.Cmd
	master *os.File
	terms  Terminals
	stdin  io.WriteCloser
	mu     sync.Mutex
	closed bool
	done   chan struct{}
	res    ExecResult
}

func (p *streamProc) wait(timeout time.Duration, readerDone chan struct{}, stdout, stderr *streamSink) {
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	timedOut := false
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	var err error
	select {
	case err = <-exited:
	case <-timer:
		timedOut = true
		p.Terminate()
		err = <-exited
	}
	if readerDone != nil {
		<-readerDone
		_ = p.master.Close()
	}
	res := ExecResult{ExitCode: p.cmd.ProcessState.ExitCode(), Stdout: stdout.buffered(), Stderr: stderr.buffered()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	}
	if timedOut {
		res.ExitCode = 124
	}
	p.res = res
	close(p.done)
}

func (p *streamProc) Write(b []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stdin == nil || p.closed {
		return errors.New("its stdin is closed (start it with streamStdin or tty to write)")
	}
	_, err := p.stdin.Write(b)
	return err
}

func (p *streamProc) CloseStdin() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stdin == nil || p.closed {
		return nil
	}
	p.closed = true
	if p.master != nil {
		_, err := p.master.Write([]byte{4}) // a terminal's end of input: Ctrl-D
		return err
	}
	return p.stdin.Close()
}

func (p *streamProc) Resize(rows, cols int) error {
	if p.master == nil {
		return errors.New("it has no terminal (start it with tty)")
	}
	return p.terms.Resize(p.master, rows, cols)
}

// Terminate kills the process's group (its session with tty).
func (p *streamProc) Terminate() {
	select {
	case <-p.done:
		return
	default:
	}
	if p.cmd != nil && p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

func (p *streamProc) Done() <-chan struct{} { return p.done }
func (p *streamProc) Result() ExecResult    { return p.res }

// streamSink is one output stream: streamed to the client, or buffered
// for the response, within the output cap (0: none).
type streamSink struct {
	name string
	max  int
	out  func(string, []byte, bool)
	mu   sync.Mutex
	n    int
	buf  []byte
}

func (p *streamProc) sink(name string, max int, o StreamOptions) *streamSink {
	return &streamSink{name: name, max: max, out: o.Output}
}

func (s *streamSink) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(b)
	capped := false
	if s.max > 0 {
		room := s.max - s.n
		if room <= 0 {
			return n, nil
		}
		if len(b) >= room {
			b, capped = b[:room], len(b) > room
		}
	}
	s.n += len(b)
	if s.out == nil {
		s.buf = append(s.buf, b...)
		return n, nil
	}
	if len(b) > 0 || capped {
		s.out(s.name, append([]byte(nil), b...), capped)
	}
	return n, nil
}

func (s *streamSink) buffered() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.buf)
}
