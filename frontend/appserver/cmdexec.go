package appserver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// Exec runs command/exec's command in this process, its output captured.
// The sandbox mode is not enforced here yet: like the commands of turns,
// it will be once the sandbox helper runs commands.
func (a *TemporalBackend) Exec(ctx context.Context, r ExecRequest) (ExecResult, error) {
	if st, err := os.Stat(r.Cwd); err != nil || !st.IsDir() {
		return ExecResult{}, &SettingsError{Err: fmt.Errorf("working directory %s does not exist", r.Cwd)}
	}
	runCtx := ctx
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	cmd := exec.Command(r.Command[0], r.Command[1:]...)
	cmd.Dir, cmd.Env = r.Cwd, commandEnv(r)
	stdout, stderr := &cappedBuffer{max: r.OutputCap}, &cappedBuffer{max: r.OutputCap}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return ExecResult{ExitCode: 127, Stderr: err.Error()}, nil
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timedOut := false
	select {
	case <-done:
	case <-runCtx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		timedOut = ctx.Err() == nil
	}
	res := ExecResult{ExitCode: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode = 128 + int(ws.Signal())
	}
	if timedOut {
		res.ExitCode = 124
		res.Stderr += fmt.Sprintf("\n[command timed out after %s and was killed]", r.Timeout)
	}
	return res, nil
}

// commandEnv is this process's environment with the request's overrides
// (a nil value unsets).
func commandEnv(r ExecRequest) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := r.Env[k]; !over {
			env = append(env, kv)
		}
	}
	for k, v := range r.Env {
		if v != nil {
			env = append(env, k+"="+*v)
		}
	}
	return env
}

// cappedBuffer keeps the first max bytes written (all when max is 0).
type cappedBuffer struct {
	max int
	buf bytes.Buffer
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if c.max > 0 {
		if room := c.max - c.buf.Len(); room < len(p) {
			p = p[:max(room, 0)]
		}
	}
	c.buf.Write(p)
	return n, nil
}

func (c *cappedBuffer) String() string { return c.buf.String() }
