package activities

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"go.temporal.io/sdk/temporal"
)

// ErrTypeStore is the error type of a step the transcript store failed:
// the turn retries it as a store failure, not as a model call.
const ErrTypeStore = "StoreError"

// storeFailure is the activity error for a store error: retryable (a full
// disk, a read-only directory, an object store out of reach may recover),
// except a blob that a remote tier lost or holds corrupted, which no retry
// brings back. Without a remote tier a missing blob may be on another
// worker, where a retry can land.
func (s *Store) storeFailure(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrCorrupt) || (s.remote != nil && errors.Is(err, ErrMissing)) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeStore, nil)
	}
	return temporal.NewApplicationError(err.Error(), ErrTypeStore)
}

// keptAnswers holds the answers whose transcript could not be stored, by
// step, so the retry of that step writes them again instead of asking the
// model again (on this worker; a retry elsewhere asks afresh).
type keptAnswers struct {
	once  sync.Once
	calls *lru.Cache[string, *modelCall]
}

func (k *keptAnswers) cache() *lru.Cache[string, *modelCall] {
	k.once.Do(func() { k.calls, _ = lru.New[string, *modelCall](256) })
	return k.calls
}

// stepKey names a step's call by everything its answer depends on, so a
// step asked again with other input (steered, edited) is not answered
// from a kept call.
func stepKey(in ModelInput) string {
	b, _ := json.Marshal(in.Append)
	return fmt.Sprintf("%s/%s/%d/%s/%s/%s", in.ThreadID, in.TurnID, in.Step, in.Transcript, RefOf(b), in.Model)
}

// keep holds c's answer for a retry of its step.
func (a *Activities) keep(c *modelCall) { a.kept.cache().Add(stepKey(c.in), c) }

// keptCall returns the held answer of in's step, removing it.
func (a *Activities) keptCall(in ModelInput) *modelCall {
	key := stepKey(in)
	c, ok := a.kept.cache().Get(key)
	if ok {
		a.kept.cache().Remove(key)
	}
	return c
}
