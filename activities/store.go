package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/interpreter-dev/interpreter/harness"
)

// Store keeps transcript entries and transcript manifests as
// content-addressed blobs, so workflow history carries a short reference
// instead of the whole conversation on every model call. Blobs are immutable;
// writes are atomic (temp file + rename), so a retried activity can rewrite
// them safely. Workers that share model calls share the directory, or
// each keeps its own as a cache of a [Remote] they all reach.
type Store struct {
	dir   string
	cache *lru.Cache[string, []byte]
	// remote, when set, holds every blob; the directory caches it. sent
	// are the blobs this process knows the remote holds.
	remote Remote
	sent   *lru.Cache[string, struct{}]
}

// SetRemote makes r the store's second tier: every Put also goes there
// (before it returns), and a blob missing here is fetched from there.
func (s *Store) SetRemote(r Remote) {
	s.remote = r
	s.sent, _ = lru.New[string, struct{}](1 << 16)
}

// manifest is an ordered list of entry refs: one transcript.
type manifest struct {
	Entries []string `json:"entries"`
}

// NewStore opens (creating) a store directory.
func NewStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating store %s: %w", dir, err)
	}
	c, _ := lru.New[string, []byte](4096)
	return &Store{dir: dir, cache: c}, nil
}

// Dir is the store's root directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) path(ref string) string {
	return filepath.Join(s.dir, ref[:2], ref)
}

// Put writes data and returns its reference.
func (s *Store) Put(data []byte) (string, error) {
	if s.remote == nil {
		return s.putLocal(data)
	}
	ref := RefOf(data)
	if s.sent.Contains(ref) {
		return ref, nil
	}
	if err := s.remote.Put(context.Background(), ref, data); err != nil {
		return "", err
	}
	s.sent.Add(ref, struct{}{})
	return s.putLocal(data)
}

func (s *Store) putLocal(data []byte) (string, error) {
	ref := RefOf(data)
	// The file, not the cache, says whether the blob is here: a deleted
	// thread's blobs may still be cached (storedelete.go).
	p := s.path(ref)
	if _, err := os.Stat(p); err == nil {
		s.cache.Add(ref, data)
		return ref, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", fmt.Errorf("store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("store: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	s.cache.Add(ref, data)
	return ref, nil
}

// ErrMissing means a reference is not in this store: the worker does not
// share the store directory with the worker that wrote it.
var ErrMissing = errors.New("blob not in store")

// ErrCorrupt means a blob read from a remote tier does not hash to its
// reference.
var ErrCorrupt = errors.New("blob does not match its reference")

// Get reads a blob, from the remote tier when it is not here.
func (s *Store) Get(ref string) ([]byte, error) {
	b, err := s.getLocal(ref)
	if s.remote == nil || !errors.Is(err, ErrMissing) {
		return b, err
	}
	b, err = s.remote.Get(context.Background(), ref)
	if err != nil {
		return nil, err
	}
	s.sent.Add(ref, struct{}{})
	if _, err := s.putLocal(b); err != nil {
		return nil, err
	}
	return b, nil
}

func (s *Store) getLocal(ref string) ([]byte, error) {
	if len(ref) < 3 {
		return nil, fmt.Errorf("store: bad reference %q", ref)
	}
	if b, ok := s.cache.Get(ref); ok {
		return b, nil
	}
	b, err := os.ReadFile(s.path(ref))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s (workers on several machines share the store directory %s or a blob server: [store] url)", ErrMissing, ref, s.dir)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s.cache.Add(ref, b)
	return b, nil
}

// Transcript loads the entries of a transcript manifest ("" is empty).
func (s *Store) Transcript(ref string) ([]harness.Entry, []string, error) {
	if ref == "" {
		return nil, nil, nil
	}
	b, err := s.Get(ref)
	if err != nil {
		return nil, nil, err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, fmt.Errorf("decoding transcript %s: %w", ref, err)
	}
	entries := make([]harness.Entry, 0, len(m.Entries))
	for _, r := range m.Entries {
		eb, err := s.Get(r)
		if err != nil {
			return nil, nil, err
		}
		var e harness.Entry
		if err := json.Unmarshal(eb, &e); err != nil {
			return nil, nil, fmt.Errorf("decoding entry %s: %w", r, err)
		}
		entries = append(entries, e)
	}
	return entries, m.Entries, nil
}

// Append stores entries and a new manifest extending refs; it returns the
// new manifest's reference.
func (s *Store) Append(refs []string, entries []harness.Entry) (string, error) {
	out := make([]string, len(refs), len(refs)+len(entries))
	copy(out, refs)
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return "", fmt.Errorf("encoding entry: %w", err)
		}
		r, err := s.Put(b)
		if err != nil {
			return "", err
		}
		out = append(out, r)
	}
	b, err := json.Marshal(manifest{Entries: out})
	if err != nil {
		return "", fmt.Errorf("encoding manifest: %w", err)
	}
	return s.Put(b)
}
