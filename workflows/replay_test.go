package workflows

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// historiesDir holds histories recorded at the baseline from real runs on
// the embedded server (see its README.md). Replaying them against the
// current code fails on any change that is not deterministic with respect
// to them.
const historiesDir = "testdata/histories"

var replayLogger = log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))

// replay replays one recorded history with thread and turn registered
// under their names (turn is the turn workflow to replay it against).
func replay(file string, turn func(workflow.Context, TurnInput) (TurnResult, error)) error {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(ThreadWorkflow, workflow.RegisterOptions{Name: "ThreadWorkflow"})
	r.RegisterWorkflowWithOptions(turn, workflow.RegisterOptions{Name: "TurnWorkflow"})
	r.RegisterWorkflowWithOptions(AutomationWorkflow, workflow.RegisterOptions{Name: "AutomationWorkflow"})
	return r.ReplayWorkflowHistoryFromJSONFile(replayLogger, file)
}

// TestReplayRecordedHistories replays every recorded history. It fails,
// rather than skips, when there are none, so it cannot pass silently.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(historiesDir, "*.json"))
	require.NoError(t, err)
	if len(files) == 0 {
		t.Fatalf("no recorded histories in workflows/%s: record them with "+
			"`go test ./dev/devtest/ -run TestRecordHistories -record` (see %s/README.md)", historiesDir, historiesDir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			require.NoError(t, replay(f, TurnWorkflow))
		})
	}
}

// A change that is not deterministic fails the replay: a turn workflow
// that waits on one more timer before it starts, registered under the
// turn's name, does not replay a recorded turn.
func TestReplayCatchesANonDeterministicChange(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(historiesDir, "basic-*-turn-1.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recorded basic turn")
	oneMoreTimer := func(ctx workflow.Context, in TurnInput) (TurnResult, error) {
		if err := workflow.Sleep(ctx, time.Second); err != nil {
			return TurnResult{}, err
		}
		return TurnWorkflow(ctx, in)
	}
	for _, f := range files {
		require.NoError(t, replay(f, TurnWorkflow), "the unchanged turn replays")
		err := replay(f, oneMoreTimer)
		require.Error(t, err, "%s replayed against a changed turn", f)
		// TMPRL1100 is the SDK's code for a non-deterministic workflow.
		require.Contains(t, err.Error(), "[TMPRL1100]", "%s", f)
	}
}
