package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// printAutomationLine prints one automation of a list.
func printAutomationLine(stdio Stdio, a threads.Automation) {
	state := "active"
	if a.Paused {
		state = "paused"
	}
	next := "-"
	if len(a.NextTimes) > 0 && !a.Paused {
		next = a.NextTimes[0].UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(stdio.Out, "%-24s %-7s %-16s next %-20s %s\n", a.Name, state, a.When, next, automationWhat(a))
}

func automationWhat(a threads.Automation) string {
	if a.Command != "" {
		return "command: " + workflows.OneLine(a.Command, 80)
	}
	return "prompt: " + workflows.OneLine(a.Prompt, 80)
}

// printAutomation prints one automation with its runs.
func printAutomation(stdio Stdio, a threads.Automation) {
	w := stdio.Out
	state := "active"
	if a.Paused {
		state = "paused"
	}
	fmt.Fprintf(w, "automation %s (%s), %s\n", a.Name, state, a.When)
	fmt.Fprintf(w, "  %s\n", automationWhat(a))
	fmt.Fprintf(w, "  cwd %s · sandbox %s · approvals %s", a.Cwd, a.Sandbox, a.Approval)
	if a.Model != "" && a.Command == "" {
		fmt.Fprintf(w, " · model %s", a.Model)
	}
	fmt.Fprintln(w)
	switch {
	case a.ThreadID != "":
		fmt.Fprintf(w, "  thread %s (every run is a turn of it)\n", a.ThreadID)
	case a.NewThread:
		fmt.Fprintf(w, "  a new thread per run\n")
	}
	fmt.Fprintf(w, "  runs started %d · skipped (a run was running) %d · missed (catch-up window) %d\n", a.Actions, a.Skipped, a.Missed)
	if !a.Paused {
		for _, t := range a.NextTimes {
			fmt.Fprintf(w, "  next %s\n", t.UTC().Format(time.RFC3339))
		}
	}
	if len(a.Runs) == 0 {
		fmt.Fprintln(w, "  no runs yet")
	}
	for _, r := range a.Runs {
		fmt.Fprintf(w, "  run %s  %s%s\n", r.ScheduledAt.UTC().Format(time.RFC3339), r.Status, runDetail(r))
		for _, ap := range r.Approvals {
			fmt.Fprintf(w, "    waiting for approval: %s %s (%s)\n", ap.Kind, workflows.OneLine(ap.Command, 100), ap.Answer)
		}
	}
}

// runDetail is what a run's line says after its status.
func runDetail(r threads.AutomationRunInfo) string {
	var parts []string
	if res := r.Result; res != nil {
		if res.TurnID != "" {
			parts = append(parts, "turn "+res.TurnID)
		} else if res.ThreadID != "" {
			parts = append(parts, "thread "+res.ThreadID)
		}
		if res.ExitCode != nil {
			parts = append(parts, fmt.Sprintf("exit %d", *res.ExitCode))
		}
		if res.Error != "" {
			parts = append(parts, workflows.OneLine(res.Error, 120))
		}
		if msg := res.FinalMessage; msg != "" {
			parts = append(parts, "“"+workflows.OneLine(msg, 80)+"”")
		} else if res.Output != "" {
			parts = append(parts, "output: "+workflows.OneLine(res.Output, 80))
		}
	} else if r.ThreadID != "" {
		parts = append(parts, "thread "+r.ThreadID)
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, " · ")
}
