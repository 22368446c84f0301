package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/frontend/threads"
)

// StoreGCCmd deletes the bucket's blobs that no thread reaches.
type StoreGCCmd struct {
	OlderThan time.Duration `name:"older-than" default:"24h" help:"Keep blobs written more recently than this (a running turn's newest are not in its thread's state yet)."`
	DryRun    bool          `name:"dry-run" help:"Count what would be deleted; delete nothing."`
	JSON      bool          `name:"json" help:"Print the counts as one JSON object."`
}

// Run collects.
func (s *StoreGCCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	b, cfg, err := threadsBackend(ctx, g, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	if !activities.IsBucketURL(cfg.Store.URL) {
		return exitf(2, "store gc: [store] url names no bucket (s3://, gs://, azblob://, file://)")
	}
	st, err := activities.NewStore(filepath.Join(cfg.Home(), "store"))
	if err != nil {
		return exitf(1, "%v", err)
	}
	bucket, err := activities.OpenBucket(ctx, cfg.Store.URL)
	if err != nil {
		return exitf(1, "%v", err)
	}
	defer bucket.Close()
	st.SetRemote(bucket)
	got, err := threads.CollectBlobs(ctx, b.client, cfg.Temporal.Namespace, st, s.OlderThan, s.DryRun)
	if err != nil {
		return exitf(1, "store gc: %v", err)
	}
	if s.JSON {
		return json.NewEncoder(stdio.Out).Encode(got)
	}
	verb := "deleted"
	n := got.Removed
	if s.DryRun {
		verb, n = "would delete", got.Unreferenced
	}
	fmt.Fprintf(stdio.Out, "%s: %d threads, %d blobs; %s %d unreferenced blobs older than %s\n", bucket.Name, got.Threads, got.Blobs, verb, n, s.OlderThan)
	return nil
}
