package activities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/activity"
)

// ExecInput is one shell command. The workflow runs it at most once.
type ExecInput struct {
	ThreadID  string            `json:"thread_id"`
	CallID    string            `json:"call_id"`
	Command   []string          `json:"command"`
	Cwd       string            `json:"cwd"`
	TimeoutMs int64             `json:"timeout_ms,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// MaxOutput bounds the output kept for the model (head and tail).
	MaxOutput int `json:"max_output,omitempty"`
}

// ExecOutput is a finished command. A command that fails is a normal
// result: the model reads it.
type ExecOutput struct {
	ExitCode   int    `json:"exit_code"`
	Output     string `json:"output"`
	TotalBytes int64  `json:"total_bytes"`
	DurationMs int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	// FullOutput is the path of the untruncated output on the workspace host.
	FullOutput string `json:"full_output,omitempty"`
	// StartError says why the command could not start (not found, bad cwd).
	StartError string `json:"start_error,omitempty"`
}

// DefaultMaxOutput is how much command output a model sees by default.
const DefaultMaxOutput = 10 * 1024

// Exec runs a command, heartbeating while it runs; cancellation (an
// interrupted turn) kills its whole process group.
func (a *Activities) Exec(ctx context.Context, in ExecInput) (*ExecOutput, error) {
	if len(in.Command) == 0 {
		return &ExecOutput{ExitCode: -1, StartError: "empty command"}, nil
	}
	max := in.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	runCtx := ctx
	if in.TimeoutMs > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, time.Duration(in.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	logPath, logFile, err := a.outputFile(in.ThreadID, in.CallID)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	buf := &headTail{max: max}
	cmd := exec.Command(in.Command[0], in.Command[1:]...)
	cmd.Dir = in.Cwd
	cmd.Env = os.Environ()
	for k, v := range a.CommandEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range in.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	w := io.MultiWriter(logFile, buf)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.Stdin = nil
	// Pdeathsig: a command must not outlive the worker that ran it, or a
	// crashed worker would leave work going on that nobody accounts for.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return &ExecOutput{ExitCode: 127, StartError: err.Error(), Output: err.Error()}, nil
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(a.heartbeatEvery())
	defer tick.Stop()
	var waitErr error
	timedOut := false
loop:
	for {
		select {
		case waitErr = <-done:
			break loop
		case <-runCtx.Done():
			timedOut = ctx.Err() == nil
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			waitErr = <-done
			break loop
		case <-tick.C:
			if activity.IsActivity(ctx) {
				activity.RecordHeartbeat(ctx, buf.Total())
			}
		}
	}
	out := &ExecOutput{
		Output:     buf.String(),
		TotalBytes: buf.Total(),
		DurationMs: time.Since(start).Milliseconds(),
		TimedOut:   timedOut,
		FullOutput: logPath,
	}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		out.ExitCode = exitErr.ExitCode()
		if out.ExitCode < 0 {
			out.ExitCode = 128 + int(syscall.SIGKILL)
		}
	default:
		out.ExitCode = -1
	}
	if timedOut {
		out.Output += fmt.Sprintf("\n[command timed out after %d ms]", in.TimeoutMs)
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	return out, nil
}

func (a *Activities) heartbeatEvery() time.Duration {
	if a.HeartbeatEvery > 0 {
		return a.HeartbeatEvery
	}
	return time.Second
}

func (a *Activities) outputFile(thread, call string) (string, *os.File, error) {
	dir := filepath.Join(a.Store.Dir(), "outputs", safeName(thread))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("creating output dir: %w", err)
	}
	p := filepath.Join(dir, safeName(call)+".log")
	f, err := os.Create(p)
	if err != nil {
		return "", nil, fmt.Errorf("creating output file: %w", err)
	}
	return p, f, nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
}

// headTail keeps the first and last max/2 bytes of a stream.
type headTail struct {
	mu    sync.Mutex
	max   int
	head  []byte
	tail  []byte
	total int64
}

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total += int64(len(p))
	half := h.max / 2
	rest := p
	if len(h.head) < half {
		n := min(half-len(h.head), len(rest))
		h.head = append(h.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		h.tail = append(h.tail, rest...)
		if len(h.tail) > 2*half {
			h.tail = append(h.tail[:0:0], h.tail[len(h.tail)-half:]...)
		}
	}
	return len(p), nil
}

func (h *headTail) Total() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// String is the kept output; a cut in the middle is marked.
func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	tail := h.tail
	if len(tail) > h.max/2 {
		tail = tail[len(tail)-h.max/2:]
	}
	omitted := h.total - int64(len(h.head)) - int64(len(tail))
	if omitted <= 0 {
		return string(h.head) + string(h.tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes omitted of %d ...]\n%s", h.head, omitted, h.total, tail)
}
