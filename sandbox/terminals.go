package sandbox

import "os"

// Terminals opens and resizes pseudo-terminals ([OpenPTY], [ResizePTY])
// as a value, for a front end that runs a command itself (the
// app-server's command/exec with tty).
type Terminals struct{}

// Open opens a pseudo-terminal of rows x cols.
func (Terminals) Open(rows, cols int) (master, slave *os.File, err error) { return OpenPTY(rows, cols) }

// Resize sets a pseudo-terminal's size.
func (Terminals) Resize(master *os.File, rows, cols int) error { return ResizePTY(master, rows, cols) }
