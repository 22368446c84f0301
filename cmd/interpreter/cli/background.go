package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
)

// startBackgroundDev starts `interpreter dev` as a daemon (its own session,
// output to $INTERPRETER_HOME/dev.log) and waits until it answers. The
// server, the UI and a worker then outlive this command: a turn goes on if
// the command is killed, and the UI stays up to read it.
func startBackgroundDev(ctx context.Context, cfg *config.Config, port int, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this executable: %w", err)
	}
	if err := os.MkdirAll(cfg.Home(), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", cfg.Home(), err)
	}
	logPath := filepath.Join(cfg.Home(), "dev.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening %s: %w", logPath, err)
	}
	defer logFile.Close()
	args := []string{"dev", "--port", strconv.Itoa(port), "--home", cfg.Home()}
	if portFree(8233) == nil {
		args = append(args, "--ui-port", "8233")
	} else {
		args = append(args, "--headless")
	}
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting `interpreter dev`: %w", err)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	fmt.Fprintf(stderr, "interpreter: no Temporal server at %s; started `interpreter dev` in the background (pid %d, log %s, state in %s)\n",
		cfg.Temporal.Address, pid, logPath, defaultDB(cfg))
	deadline := time.Now().Add(60 * time.Second)
	for !probe(ctx, cfg.Temporal) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return exitf(1, "the background `interpreter dev` did not come up; see %s", logPath)
		}
		if syscall.Kill(pid, 0) != nil {
			return exitf(1, "the background `interpreter dev` exited; see %s", logPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}
