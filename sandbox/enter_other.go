//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// Enter applies b and executes argv. Only Linux has an enforcing
// sandbox; elsewhere anything but danger-full-access is refused (fail
// closed), so nothing runs unsandboxed by surprise.
func Enter(b Boundary, argv []string) error {
	if b.Mode != DangerFullAccess {
		return fmt.Errorf("cannot apply the %s sandbox: there is no sandbox for %s in this build; "+
			"use sandbox_mode = \"danger-full-access\" only inside an outside VM or container that is the boundary", b.Mode, runtime.GOOS)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err == nil || errors.As(err, &exit) {
		os.Exit(cmd.ProcessState.ExitCode())
	}
	return fmt.Errorf("executing %s: %w", argv[0], err)
}

// Available reports whether this host can enforce the sandbox.
func Available() error {
	return fmt.Errorf("no sandbox for %s", runtime.GOOS)
}
