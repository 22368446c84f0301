package exec

import (
	"fmt"
	"io"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// PrintGoal writes a thread's goal for a person (`threads show`,
// `goal show`).
func PrintGoal(w io.Writer, g *workflows.Goal) {
	fmt.Fprintf(w, "goal: %s\n", g.Objective)
	fmt.Fprintf(w, "  status: %s", g.Status)
	if g.Reason != "" {
		fmt.Fprintf(w, " (%s)", g.Reason)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  tokens: %d", g.TokensUsed)
	if g.TokenBudget != nil {
		fmt.Fprintf(w, " of %d", *g.TokenBudget)
	}
	fmt.Fprintf(w, " · time in turns: %s · continuation turns: %d\n", time.Duration(g.TimeUsedSeconds)*time.Second, g.Continuations)
	fmt.Fprintf(w, "  updated: %s\n", g.UpdatedAt.UTC().Format(time.RFC3339))
}
