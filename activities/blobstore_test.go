package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
)

func TestOpenBucketNames(t *testing.T) {
	for _, tc := range []struct{ url, name, err string }{
		{url: "s3://team-bucket/agents/prod?region=eu-west-1&endpoint=http://127.0.0.1:8333&use_path_style=true", name: "s3://team-bucket/agents/prod/"},
		{url: "s3://team-bucket?region=us-east-1", name: "s3://team-bucket/"},
		{url: "s3:///nobucket", err: `store url "s3:///nobucket": no bucket name`},
		{url: "http://127.0.0.1:8380", err: `store url "http://127.0.0.1:8380": want s3://, gs://, azblob:// or file://`},
	} {
		t.Run(tc.url, func(t *testing.T) {
			b, err := OpenBucket(context.Background(), tc.url)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if b.Name != tc.name {
				t.Fatalf("name %q, want %q", b.Name, tc.name)
			}
		})
	}
}

// A file:// bucket (a shared mount): blobs under their hash, a missing
// one is ErrMissing, a corrupted one ErrCorrupt, listing and deleting.
func TestBucketRemoteOnAFileBucket(t *testing.T) {
	dir := t.TempDir()
	r, err := OpenBucket(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Check(ctx); err != nil {
		t.Fatal(err)
	}
	a, _ := NewStore(t.TempDir())
	b, _ := NewStore(t.TempDir())
	a.SetRemote(r)
	b.SetRemote(r)
	ref, err := a.Put([]byte("written on a"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ref); err != nil || string(got) != "written on a" {
		t.Fatalf("b.Get: %q %v", got, err)
	}
	if _, err := r.Get(ctx, RefOf([]byte("never put"))); !errors.Is(err, ErrMissing) {
		t.Fatalf("a missing blob: %v", err)
	}
	bad := RefOf([]byte("the original"))
	if err := os.MkdirAll(filepath.Join(dir, bad[:2]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, bad[:2], bad), []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = b.Get(bad)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a corrupted blob: %v", err)
	}
	var refs []string
	if err := r.Refs(ctx, func(ref string, _ time.Time) error { refs = append(refs, ref); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(refs) != 3 { // the probe, a's blob, the tampered one
		t.Fatalf("listed %v", refs)
	}
	if err := r.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, ref); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	c, _ := NewStore(t.TempDir())
	c.SetRemote(r)
	if _, err := c.Get(ref); !errors.Is(err, ErrMissing) {
		t.Fatalf("a deleted blob: %v", err)
	}
}

// A blob a remote tier lost or corrupted fails the step for good; other
// store errors, and a missing blob without a remote tier (another worker
// may hold it), are retried.
func TestStoreFailureRetryable(t *testing.T) {
	local, _ := NewStore(t.TempDir())
	remote, _ := NewStore(t.TempDir())
	r, err := OpenBucket(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	remote.SetRemote(r)
	for _, tc := range []struct {
		name      string
		s         *Store
		err       error
		retryable bool
	}{
		{"disk full", local, errors.New("store: write: no space left on device"), true},
		{"missing, no remote", local, fmt.Errorf("%w: x", ErrMissing), true},
		{"missing from the bucket", remote, fmt.Errorf("%w: x", ErrMissing), false},
		{"corrupt", remote, fmt.Errorf("%w: x", ErrCorrupt), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var app *temporal.ApplicationError
			if !errors.As(tc.s.storeFailure(tc.err), &app) || app.Type() != ErrTypeStore || app.NonRetryable() == tc.retryable {
				t.Fatalf("%v: want type %s, retryable %v", app, ErrTypeStore, tc.retryable)
			}
		})
	}
}
