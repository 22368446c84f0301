package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// remoteSweeper is a [Remote] that thread deletion can sweep too
// ([BucketRemote]).
type remoteSweeper interface {
	Has(ctx context.Context, ref string) (bool, error)
	Delete(ctx context.Context, ref string) error
}

// Has tells whether this store holds ref: its directory, or its remote
// tier when that can be asked.
func (s *Store) Has(ref string) bool {
	if !ValidRef(ref) {
		return false
	}
	if _, err := os.Stat(s.path(ref)); err == nil {
		return true
	}
	if r, ok := s.remote.(remoteSweeper); ok {
		has, err := r.Has(context.Background(), ref)
		return err == nil && has
	}
	return false
}

// Delete removes a blob from this store's directory and its cache (a
// deleted thread's, that no other thread references), and from its
// remote tier when that can delete; a blob that is not there is not an
// error. Other workers' directories are caches: what they hold of it
// stays until they are cleared.
func (s *Store) Delete(ref string) error {
	if !ValidRef(ref) {
		return fmt.Errorf("store: bad reference %q", ref)
	}
	if r, ok := s.remote.(remoteSweeper); ok {
		if err := r.Delete(context.Background(), ref); err != nil {
			return err
		}
		if s.sent != nil {
			s.sent.Remove(ref)
		}
	}
	s.cache.Remove(ref)
	if err := os.Remove(s.path(ref)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// remoteLister is a [Remote] whose blobs can be listed ([BucketRemote]).
type remoteLister interface {
	Refs(ctx context.Context, each func(ref string, mod time.Time) error) error
}

// Refs lists the blobs of the store's remote tier (the bucket, which
// every worker writes; the directory is a cache).
func (s *Store) Refs(ctx context.Context, each func(ref string, written time.Time) error) error {
	r, ok := s.remote.(remoteLister)
	if !ok {
		return errors.New("store: no bucket to list ([store] url is not s3://, gs://, azblob:// or file://)")
	}
	return r.Refs(ctx, each)
}
