package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// DefaultContextWindow is the window of a model the table does not know.
const DefaultContextWindow = 128000

// contextWindows are known models' context windows, by name prefix (first
// match wins). A thread fills its turns' window from here when the config
// does not set one; the turn reads it from its input, so changing this
// table does not change turns that already started.
var contextWindows = []struct {
	prefix string
	tokens int64
}{
	{"gpt-5", 272000},
	{"codex-", 272000},
	{"gpt-4.1", 1047576},
	{"gpt-4o", 128000},
	{"o1", 200000},
	{"o3", 200000},
	{"o4", 200000},
	{"gpt-oss", 131072},
	{"claude", 200000},
	{"kimi", 131072},
	{"qwen", 131072},
	{"deepseek", 128000},
}

// ContextWindow is a model's context window in tokens.
func ContextWindow(model string) int64 {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	for _, w := range contextWindows {
		if strings.HasPrefix(m, w.prefix) {
			return w.tokens
		}
	}
	return DefaultContextWindow
}

// withCompactDefaults fills a turn's window and compaction limit.
func withCompactDefaults(c ThreadConfig) ThreadConfig {
	if c.ContextWindow <= 0 {
		c.ContextWindow = ContextWindow(c.Model)
	}
	if c.AutoCompactTokenLimit == 0 {
		c.AutoCompactTokenLimit = c.ContextWindow * 8 / 10
	}
	return c
}

func harnessEnv(cfg ThreadConfig) harness.Env {
	return harness.Env{Cwd: cfg.Cwd, SandboxMode: cfg.SandboxMode, ApprovalPolicy: cfg.ApprovalPolicy,
		Shell: "bash", BaseInstructions: cfg.BaseInstructions, DeveloperInstructions: cfg.DeveloperInstructions}
}

// runCompaction runs the compaction activity on the shared queue.
func runCompaction(ctx workflow.Context, threadID, turnID string, cfg ThreadConfig, transcript string, fold []harness.Entry, tokens int64) (*activities.CompactOutput, error) {
	hb := cfg.ModelHeartbeat
	if hb <= 0 {
		hb = 5 * time.Second
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    hb,
		Summary:             fmt.Sprintf("compact context · model %s · %d tokens", cfg.Model, tokens),
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    30 * time.Second,
			MaximumAttempts:    3,
		},
	})
	in := activities.CompactInput{
		ThreadID: threadID, TurnID: turnID, Model: cfg.Model, Provider: cfg.Provider, Harness: cfg.Harness,
		Env: harnessEnv(cfg), Transcript: transcript, Fold: fold, Prompt: cfg.CompactPrompt, KeepTokens: cfg.CompactKeepTokens,
	}
	var out activities.CompactOutput
	if err := workflow.ExecuteActivity(actx, acts.Compact, in).Get(ctx, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// splitPending separates pending entries the summary folds in (tool
// outputs) from those that stay pending after it (user messages).
func splitPending(pending []harness.Entry) (fold, keep []harness.Entry) {
	for _, e := range pending {
		if e.Kind == harness.KindUser {
			keep = append(keep, e)
		} else {
			fold = append(fold, e)
		}
	}
	return fold, keep
}

// maybeCompact compacts the conversation before a model call once the
// previous call came near the model's window. A compaction that fails lets
// the turn go on while the conversation still fits the window, and fails
// the turn with a clear error once it does not.
func (t *turn) maybeCompact(ctx workflow.Context) error {
	cfg := t.in.Config
	limit := cfg.AutoCompactTokenLimit
	if limit <= 0 || t.st.ContextTokens < limit || t.st.Transcript == "" {
		return nil
	}
	window := cfg.ContextWindow
	if window <= 0 {
		window = ContextWindow(cfg.Model)
	}
	if t.st.CompactError != "" {
		if t.st.ContextTokens >= window {
			return fmt.Errorf("the conversation (%d tokens) no longer fits the context window of %s (%d tokens), and compacting it failed: %s",
				t.st.ContextTokens, cfg.Model, window, t.st.CompactError)
		}
		return nil
	}
	fold, keep := splitPending(t.st.Pending)
	out, err := runCompaction(ctx, t.in.ThreadID, t.in.TurnID, cfg, t.st.Transcript, fold, t.st.ContextTokens)
	it := t.newItem(ItemContextCompaction)
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted: the loop ends the turn.
			return nil
		}
		t.st.CompactError = rootMessage(err)
		it.Status, it.Message = StatusFailed, "compacting the conversation failed: "+t.st.CompactError
		t.log.add(Event{Type: EventItemCompleted, Item: it})
		if t.st.ContextTokens >= window {
			return fmt.Errorf("the conversation (%d tokens) no longer fits the context window of %s (%d tokens), and compacting it failed: %s",
				t.st.ContextTokens, cfg.Model, window, t.st.CompactError)
		}
		return nil
	}
	t.st.Transcript = out.Transcript
	t.st.Pending = keep
	t.st.Usage.Add(out.Usage)
	t.st.ContextTokens = out.TokensAfter
	it.Status, it.Text = StatusCompleted, out.Summary
	t.log.add(Event{Type: EventItemCompleted, Item: it})
	return nil
}

func (t *thread) validateCompact(ctx workflow.Context) error {
	switch {
	case t.archived:
		return Refusal(ErrThreadArchived, "thread %s is archived", t.id)
	case t.compacting:
		return fmt.Errorf("thread %s is already compacting its context", t.id)
	case t.st.Running != "":
		return Refusal(ErrTurnRunning, "thread %s is running turn %s; compact it when the turn has finished", t.id, t.st.Running)
	case len(t.st.Queue) > 0:
		return Refusal(ErrTurnWaiting, "thread %s has turn %s waiting to start; compact it when the turn has finished", t.id, t.st.Queue[0].TurnID)
	case t.st.Transcript == "":
		return fmt.Errorf("thread %s has no conversation to compact yet", t.id)
	}
	return nil
}

// compact is the [UpdateCompact] handler: it runs between turns, and turns
// are refused while it runs. On failure the thread is unchanged.
func (t *thread) compact(ctx workflow.Context) (CompactResponse, error) {
	t.compacting = true
	defer func() { t.compacting = false }()
	before := t.st.ContextTokens
	out, err := runCompaction(ctx, t.id, "", withCompactDefaults(t.st.Config), t.st.Transcript, t.st.Unsent, before)
	if err != nil {
		var canceled *temporal.CanceledError
		if errors.As(err, &canceled) {
			return CompactResponse{}, errors.New("compaction was cancelled; the thread is unchanged")
		}
		return CompactResponse{}, fmt.Errorf("compacting thread %s failed, the thread is unchanged: %s", t.id, rootMessage(err))
	}
	t.st.Transcript = out.Transcript
	t.st.Unsent = nil
	t.st.ContextTokens = out.TokensAfter
	t.st.Usage.Add(out.Usage)
	if t.st.Config.SearchAttributes {
		_ = workflow.UpsertTypedSearchAttributes(ctx, SALastActivity.ValueSet(workflow.Now(ctx).UTC()))
	}
	return CompactResponse{Summary: out.Summary, EntriesBefore: out.EntriesBefore, EntriesAfter: out.EntriesAfter,
		TokensBefore: before, TokensAfter: out.TokensAfter}, nil
}
