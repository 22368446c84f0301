package workflows

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// What the Temporal Web UI shows of a thread and its turns. The summaries
// live in user metadata, which replay does not compare, so changing one
// never breaks a recorded history.

// ThreadSummary is a thread's StaticSummary and [SASummary]; the front
// ends that start threads use it.
func ThreadSummary(prompt string) string { return "thread: " + oneLine(prompt, 100) }

// turnSummary heads a turn's page in the UI and names it under its thread.
func turnSummary(number int, prompt string) string {
	return "turn " + itoa(number) + ": " + oneLine(prompt, 80)
}

// turnSearchAttributes put the turn's summary in the list's column (the
// child's start command is matched on replay by type alone, so they are
// safe to add).
func (t *thread) turnSearchAttributes(q QueuedTurn) temporal.SearchAttributes {
	if !t.st.Config.SearchAttributes {
		return temporal.SearchAttributes{}
	}
	return temporal.NewSearchAttributes(SASummary.ValueSet(kindSummary(q)))
}

// turnEndSearchAttributes are upserted on the thread when a turn ends.
// After the first turn they also carry the thread's summary, for threads
// started without a prompt (app-server thread/start). Replay does not
// compare an upsert's attributes, so adding one is safe.
func (t *thread) turnEndSearchAttributes(q QueuedTurn, res TurnResult, now time.Time) []temporal.SearchAttributeUpdate {
	up := []temporal.SearchAttributeUpdate{SAStatus.ValueSet(res.Status), SALastActivity.ValueSet(now.UTC())}
	if q.Number == 1 {
		prompt := q.Request.Prompt
		if q.Goal && t.st.Goal != nil {
			prompt = "goal: " + t.st.Goal.Objective
		}
		up = append(up, SASummary.ValueSet(ThreadSummary(prompt)))
	}
	return up
}

// turnDetails is the turn's User Metadata details: what it ran with.
func turnDetails(cfg ThreadConfig) string {
	return fmt.Sprintf("model `%s` · provider `%s` · harness `%s` · sandbox `%s` · approvals `%s` · cwd `%s`",
		cfg.Model, cfg.Provider.ID, cfg.Harness, cfg.SandboxMode, cfg.ApprovalPolicy, cfg.Cwd)
}

// awaitNamed is workflow.AwaitWithTimeout with a name on its timer, so the
// Timeline says what the workflow was waiting for.
func awaitNamed(ctx workflow.Context, d time.Duration, name string, cond func() bool) (bool, error) {
	return workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: d, TimerOptions: workflow.TimerOptions{Summary: name}}, cond)
}

// OneLine folds s onto one line of at most max bytes, cut at a rune
// boundary, for titles and summaries the front ends write.
func OneLine(s string, max int) string { return oneLine(s, max) }

// oneLine folds s onto one line of at most max bytes, cut at a rune
// boundary (a summary the UI cannot decode shows nothing).
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ShownStatus is the status every front end shows for an item. Codex's
// item statuses (app-server CommandExecutionStatus, `exec --json`, the
// MCP server's exec_command_end) are in progress, completed, failed and
// declined; an item interrupted by a stop or by its worker's death did
// not complete and its outcome is unknown, so it shows as failed, and its
// output says it was interrupted. "declined" would claim it never ran.
func ShownStatus(status string) string {
	if status == StatusInterrupted {
		return StatusFailed
	}
	return status
}
