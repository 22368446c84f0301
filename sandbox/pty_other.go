//go:build !linux

package sandbox

import "os"

// OpenPTY is not implemented on this system: sessions there use pipes.
func OpenPTY(rows, cols int) (master, slave *os.File, err error) {
	return nil, nil, ErrNoPTY
}

// ResizePTY is not implemented on this system.
func ResizePTY(master *os.File, rows, cols int) error { return ErrNoPTY }
