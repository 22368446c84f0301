package workflows

import (
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// Memory across threads (off unless ThreadConfig.Memories): phase 1 runs
// in each thread once it has been idle for MemoryIdle; phase 2 is
// [MemoryConsolidationWorkflow], started on a Temporal Schedule (through
// [ScheduledMemoryWorkflow]) and on demand, under one fixed workflow id so
// that only one consolidation runs at a time.

// MemoryConsolidationID is the workflow id of the consolidation: the lease
// that keeps two from running at once.
const MemoryConsolidationID = "interpreter-memory-consolidation"

// MemoryScheduleID names the Temporal Schedule of consolidations.
const MemoryScheduleID = "interpreter-memory-consolidation-schedule"

// DefaultMemoryIdle is how long a thread stays idle before its memory is
// extracted.
const DefaultMemoryIdle = 10 * time.Minute

// ConsolidateRequest configures a consolidation.
type ConsolidateRequest struct {
	MaxUnusedDays int `json:"max_unused_days,omitempty"`
}

// ConsolidateResult answers a consolidation; Skipped means another one was
// running.
type ConsolidateResult struct {
	activities.ConsolidateOutput
	Skipped bool `json:"skipped,omitempty"`
}

func memoryActivity(ctx workflow.Context, cfg ThreadConfig, summary string) workflow.Context {
	hb := cfg.ModelHeartbeat
	if hb <= 0 {
		hb = 5 * time.Second
	}
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    hb,
		Summary:             summary,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 3},
	})
}

// memoryDue tells whether the thread has talked since its memory was last
// extracted.
func (t *thread) memoryDue() bool {
	return t.st.Config.Memories && t.st.Transcript != "" && t.st.Transcript != t.st.MemoryRef
}

// idleMemory waits until cond holds or the thread has been idle for
// MemoryIdle; in the latter case it extracts the thread's raw memory.
func (t *thread) idleMemory(ctx workflow.Context, cond func() bool) error {
	idle := t.st.Config.MemoryIdle
	if idle <= 0 {
		idle = DefaultMemoryIdle
	}
	ok, err := awaitNamed(ctx, idle, "idle: extract memory after "+idle.String(), cond)
	if err != nil || ok {
		return err
	}
	t.extractMemory(ctx)
	return nil
}

// extractMemory is phase 1. A failure is logged and not retried for the
// same conversation: memory is a help, never a reason to stop a thread.
func (t *thread) extractMemory(ctx workflow.Context) {
	cfg := t.st.Config
	in := activities.MemoryInput{ThreadID: t.id, Model: cfg.Model, Provider: cfg.Provider, Harness: cfg.Harness,
		Env: harnessEnv(cfg), Transcript: t.st.Transcript}
	var out activities.MemoryOutput
	if err := workflow.ExecuteActivity(memoryActivity(ctx, cfg, "memory: extract from this thread"), acts.ExtractMemory, in).Get(ctx, &out); err != nil {
		workflow.GetLogger(ctx).Warn("memory extraction failed", "thread", t.id, "error", rootMessage(err))
	}
	t.st.MemoryRef = t.st.Transcript
}

// loadMemory reads the consolidated memory for a new thread, once.
func (t *thread) loadMemory(ctx workflow.Context) {
	var summary string
	if err := workflow.ExecuteActivity(memoryActivity(ctx, t.st.Config, "memory: load MEMORY.md"), acts.LoadMemory).Get(ctx, &summary); err != nil {
		workflow.GetLogger(ctx).Warn("loading memory failed", "thread", t.id, "error", rootMessage(err))
	}
	t.st.MemorySummary = summary
	t.st.MemoryLoaded = true
}

// withMemory adds the memory summary to the developer instructions.
func withMemory(instructions, memory string) string {
	if strings.TrimSpace(memory) == "" {
		return instructions
	}
	if instructions == "" {
		return memory
	}
	return instructions + "\n\n" + memory
}

// MemoryConsolidationWorkflow is phase 2: it merges the raw memories into
// MEMORY.md. Run it under [MemoryConsolidationID].
func MemoryConsolidationWorkflow(ctx workflow.Context, req ConsolidateRequest) (ConsolidateResult, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		Summary:             "memory: consolidate into MEMORY.md",
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
	})
	var out activities.ConsolidateOutput
	err := workflow.ExecuteActivity(actx, acts.ConsolidateMemories,
		activities.ConsolidateInput{MaxUnusedDays: req.MaxUnusedDays, Now: workflow.Now(ctx)}).Get(ctx, &out)
	if err != nil {
		return ConsolidateResult{}, err
	}
	if out.Broken != "" {
		workflow.GetLogger(ctx).Warn("MEMORY.md did not parse; kept aside and rebuilt", "kept", out.Broken, "problem", out.Problem)
	}
	return ConsolidateResult{ConsolidateOutput: out}, nil
}

// ScheduledMemoryWorkflow is what the Schedule starts: the consolidation
// as a child under its fixed id, skipped when one is already running.
func ScheduledMemoryWorkflow(ctx workflow.Context, req ConsolidateRequest) (ConsolidateResult, error) {
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            MemoryConsolidationID,
		StaticSummary:         "memory consolidation (scheduled)",
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	})
	var res ConsolidateResult
	err := workflow.ExecuteChildWorkflow(cctx, MemoryConsolidationWorkflow, req).Get(ctx, &res)
	if temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		return ConsolidateResult{Skipped: true}, nil
	}
	return res, err
}
