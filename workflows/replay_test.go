package workflows

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// historiesDir holds histories recorded from real runs on the embedded
// server (see its README.md). Replaying them against the current code fails
// on any change that is not deterministic with respect to them.
const historiesDir = "testdata/histories"

// TestReplayRecordedHistories replays every recorded history. It fails,
// rather than skips, when there are none, so it cannot pass silently.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(historiesDir, "*.json"))
	require.NoError(t, err)
	if len(files) == 0 {
		t.Fatalf("no recorded histories in workflows/%s: record them with "+
			"`go test ./dev/devtest/ -run TestRecordHistories -record` (see %s/README.md)", historiesDir, historiesDir)
	}
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(ThreadWorkflow, workflow.RegisterOptions{Name: "ThreadWorkflow"})
			r.RegisterWorkflowWithOptions(TurnWorkflow, workflow.RegisterOptions{Name: "TurnWorkflow"})
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(logger, f))
		})
	}
}
