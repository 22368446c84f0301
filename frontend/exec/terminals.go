package exec

import (
	"fmt"
	"io"

	"github.com/interpreter-dev/interpreter/workflows"
)

// printTerminals lists a thread's background terminals for a person, as
// `threads show` prints them.
func printTerminals(w io.Writer, ts []workflows.BackgroundTerminal) {
	if len(ts) == 0 {
		return
	}
	fmt.Fprintf(w, "background terminals (%d):\n", len(ts))
	for _, t := range ts {
		fmt.Fprintf(w, "  %s · %s · cwd %s\n", t.ProcessID, t.Command, t.Cwd)
	}
}
