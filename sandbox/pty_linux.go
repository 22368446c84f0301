//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// OpenPTY opens a pseudo-terminal pair: the master, which the worker
// reads and writes, and the slave, which a command gets as [Spec.TTY].
// The caller closes the slave once the command has started.
func OpenPTY(rows, cols int) (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNoPTY, err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		_ = m.Close()
		return nil, nil, fmt.Errorf("%w: unlocking the terminal: %v", ErrNoPTY, err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		_ = m.Close()
		return nil, nil, fmt.Errorf("%w: naming the terminal: %v", ErrNoPTY, err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		_ = m.Close()
		return nil, nil, fmt.Errorf("%w: %v", ErrNoPTY, err)
	}
	if err := ResizePTY(m, rows, cols); err != nil {
		_, _ = m.Close(), s.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// ResizePTY sets the terminal size seen by the command on master's slave.
func ResizePTY(master *os.File, rows, cols int) error {
	if rows <= 0 || cols <= 0 {
		rows, cols = 24, 80
	}
	ws := &unix.Winsize{Row: uint16(min(rows, 1<<15)), Col: uint16(min(cols, 1<<15))}
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, ws); err != nil {
		return fmt.Errorf("resizing the terminal: %w", err)
	}
	return nil
}
