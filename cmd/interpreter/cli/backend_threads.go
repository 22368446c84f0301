package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/threads"
)

// cancelQuiet drops the Temporal client's error lines about calls that
// ended because their caller was done (a client disconnected while its
// long polls ran: GetCurrentExecution, PollWorkflowExecutionHistory):
// a normal end, not an error.
type cancelQuiet struct{ sdklog.Logger }

func (l cancelQuiet) Error(msg string, keyvals ...any) {
	if canceled(keyvals) {
		return
	}
	l.Logger.Error(msg, keyvals...)
}

func (l cancelQuiet) Warn(msg string, keyvals ...any) {
	if canceled(keyvals) {
		return
	}
	l.Logger.Warn(msg, keyvals...)
}

// canceled tells whether a log line's error is a cancellation.
func canceled(keyvals []any) bool {
	for _, kv := range keyvals {
		err, ok := kv.(error)
		if !ok {
			continue
		}
		if errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled || strings.Contains(err.Error(), context.Canceled.Error()) {
			return true
		}
	}
	return false
}

// threadBlobs is the transcript store on this machine that thread
// deletion sweeps (nil if it cannot be opened).
func threadBlobs(cfg *config.Config) threads.BlobStore {
	st, err := activities.NewStore(filepath.Join(cfg.Home(), "store"))
	if err != nil {
		return nil
	}
	// With object storage, the bucket is swept too (no check write: a
	// front end without the bucket's credentials still deletes threads,
	// and the deletion says what it could not remove).
	if u := cfg.Store.URL; activities.IsBucketURL(u) {
		if b, err := activities.OpenBucket(context.Background(), u); err == nil {
			st.SetRemote(b)
		}
	}
	return st
}

// ThreadsDeleteCmd deletes a thread for good.
type ThreadsDeleteCmd struct {
	ID   string `arg:"" help:"Thread id."`
	JSON bool   `name:"json" help:"Print what was deleted as one JSON object."`
}

// Run deletes.
func (d *ThreadsDeleteCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, cfg, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	gone, err := threads.Delete(ctx, b.client, cfg.Temporal.Namespace, d.ID, threadBlobs(cfg))
	if err != nil {
		return threadExit(d.ID, err)
	}
	if d.JSON {
		return json.NewEncoder(stdio.Out).Encode(gone)
	}
	fmt.Fprintf(stdio.Out, "deleted %s (%d threads, %d workflow runs, %d store blobs)\n", d.ID, len(gone.Threads), gone.Executions, gone.Blobs)
	if gone.BlobsKept != "" {
		fmt.Fprintf(stdio.Err, "interpreter: store blobs kept: %s\n", gone.BlobsKept)
	}
	return nil
}
