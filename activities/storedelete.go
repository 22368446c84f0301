package activities

import (
	"errors"
	"fmt"
	"os"
)

// Has tells whether this store's directory holds ref (the remote tier is
// not asked).
func (s *Store) Has(ref string) bool {
	if !ValidRef(ref) {
		return false
	}
	_, err := os.Stat(s.path(ref))
	return err == nil
}

// Delete removes a blob from this store's directory and its cache (a
// deleted thread's, that no other thread references); a blob that is not
// here is not an error. A remote tier keeps its copy.
func (s *Store) Delete(ref string) error {
	if !ValidRef(ref) {
		return fmt.Errorf("store: bad reference %q", ref)
	}
	s.cache.Remove(ref)
	if err := os.Remove(s.path(ref)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}
