package threads

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/workflows"
)

// A client hears of a turn's end (from its log, or from the signal that
// ends its last model call's task) before the turn's run closes, and the
// thread takes that end in a workflow task after the close. In that
// window the thread still shows the turn as running: its result is not
// among the thread's turns, its transcript is the one before it, its
// goal has not counted it or started the next turn, its open exec
// sessions are not yet the thread's background terminals.
//
// So this process remembers, per thread, the last turn whose end it saw,
// and whether it has since seen the thread take that end in. [Reply]
// names that turn ([workflows.StartTurnRequest.After]): the thread
// queues the reply behind it rather than refusing it. Every other call
// here that reads or changes a thread first waits, briefly, until the
// thread's view has that turn among its turns ([settle]); once seen, the
// wait costs nothing more. A reader in another process, which never saw
// the end, reads the thread as it is: consistent, the turn still running
// until the thread takes its end in.

// ended is the memory; a stale entry names a turn the thread no longer
// runs, and the thread ignores it.
var ended = struct {
	mu sync.Mutex
	m  map[string]endedEntry
}{m: map[string]endedEntry{}}

// endedEntry is the last turn of a thread whose end was seen here, and
// whether the thread was seen to have taken it in.
type endedEntry struct {
	turn    string
	takenIn bool
}

// maxEnded bounds the memory: past it, the memory starts afresh (a reply
// to a forgotten thread is refused and retried, as without it; a read
// reads the thread as a reader elsewhere would).
const maxEnded = 4096

// settleWait bounds how long a call waits for the thread to take in an
// end seen here (it usually takes a few milliseconds; a thread whose
// worker is gone must not hang the call).
const settleWait = 5 * time.Second

// noteEnded records that turnID's log showed the turn's end.
func noteEnded(turnID string) {
	i := strings.LastIndex(turnID, "/turn-")
	if i <= 0 {
		return
	}
	ended.mu.Lock()
	defer ended.mu.Unlock()
	if e, ok := ended.m[turnID[:i]]; ok && e.turn == turnID {
		return
	}
	if len(ended.m) >= maxEnded {
		ended.m = map[string]endedEntry{}
	}
	ended.m[turnID[:i]] = endedEntry{turn: turnID}
}

// endedTurn is the last turn of threadID whose end was seen here.
func endedTurn(threadID string) string {
	ended.mu.Lock()
	defer ended.mu.Unlock()
	return ended.m[threadID].turn
}

// pendingEnd is the turn of threadID whose end was seen here and which
// the thread has not been seen to take in ("" when none).
func pendingEnd(threadID string) string {
	ended.mu.Lock()
	defer ended.mu.Unlock()
	if e := ended.m[threadID]; !e.takenIn {
		return e.turn
	}
	return ""
}

// markTakenIn records that the thread has taken in turnID's end (if that
// is still the last end seen).
func markTakenIn(threadID, turnID string) {
	ended.mu.Lock()
	defer ended.mu.Unlock()
	if e := ended.m[threadID]; e.turn == turnID {
		e.takenIn = true
		ended.m[threadID] = e
	}
}

// settle waits until threadID has taken in the last end seen here (see
// above); it returns at once when there is none.
func settle(ctx context.Context, c client.Client, threadID string) {
	if pendingEnd(threadID) != "" {
		_, _ = settledView(ctx, c, threadID)
	}
}

// settledView reads the thread's view, again (briefly) while it lacks
// the last end seen here.
func settledView(ctx context.Context, c client.Client, threadID string) (workflows.ThreadView, error) {
	turn := pendingEnd(threadID)
	deadline := time.Now().Add(settleWait)
	for attempt := 0; ; attempt++ {
		v, err := queryView(ctx, c, threadID)
		if err != nil || turn == "" {
			return v, err
		}
		if tookIn(v, turn) {
			markTakenIn(threadID, turn)
			return v, nil
		}
		if time.Now().After(deadline) || sleepCtx(ctx, settlePause(attempt)) != nil {
			return v, nil
		}
	}
}

// tookIn tells whether a thread's view shows turn's end taken in: the
// turn is among its turns, or nothing is left running (a thread brought
// back from its archive, say).
func tookIn(v workflows.ThreadView, turn string) bool {
	if v.RunningTurn == "" {
		return true
	}
	for i := len(v.Turns) - 1; i >= 0; i-- {
		if v.Turns[i].TurnID == turn {
			return true
		}
	}
	return false
}

// settlePause paces the reads: the thread usually takes the end in
// within a few milliseconds of the turn's close.
func settlePause(attempt int) time.Duration {
	if attempt < 5 {
		return 2 * time.Millisecond
	}
	return 10 * time.Millisecond
}
