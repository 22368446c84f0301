package threads

import (
	"strings"
	"sync"
)

// ended remembers, per thread, the last turn whose end a follower in
// this process saw; [Reply] names it ([workflows.StartTurnRequest.After]),
// so a reply sent right after that end is queued behind the turn while
// its run closes, not refused and sent again. A stale entry names a turn
// the thread no longer runs, and the thread ignores it.
var ended = struct {
	mu sync.Mutex
	m  map[string]string
}{m: map[string]string{}}

// maxEnded bounds the memory: past it, the memory starts afresh (a reply
// to a forgotten thread is refused and retried, as without it).
const maxEnded = 4096

// noteEnded records that turnID's log showed the turn's end.
func noteEnded(turnID string) {
	i := strings.LastIndex(turnID, "/turn-")
	if i <= 0 {
		return
	}
	ended.mu.Lock()
	defer ended.mu.Unlock()
	if len(ended.m) >= maxEnded {
		ended.m = map[string]string{}
	}
	ended.m[turnID[:i]] = turnID
}

// endedTurn is the last turn of threadID whose end was seen here.
func endedTurn(threadID string) string {
	ended.mu.Lock()
	defer ended.mu.Unlock()
	return ended.m[threadID]
}
