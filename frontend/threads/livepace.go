package threads

import "time"

// LiveQuietPolls is how many empty polls in a row a [LivePace] makes at
// every tick before it backs off.
const LiveQuietPolls = 30

// LiveMaxGap is the most ticks a [LivePace] lets pass between polls of a
// quiet turn that may not wake its followers.
const LiveMaxGap = 100

// LiveParkedGap is the most ticks a parked [LivePace] lets pass between
// polls (10 min at the front ends' 100 ms tick): the turn's history wakes
// it, and this poll only covers a wake that was lost.
const LiveParkedGap = 6000

// LivePace is how front ends pace their polls of a turn's live output: every
// tick while the turn shows news and for LiveQuietPolls ticks after (the
// first output of a command that talks comes as soon as it did before),
// then with gaps that double from 10 ticks to LiveMaxGap, and never while
// the turn waits for a client (nothing runs then). Every logged event
// re-arms it ([LivePace.Moved]), as does every move of the turn's history
// (a workflow task, a wake): the follower already learns of those from
// its history long poll, for free.
//
// A turn whose running commands wake their followers when they print
// after a silence ([LiveOutput.Wakes]) is not asked about at all once it
// has been quiet that long ([LivePace.ParkAfter]): the pace parks, and
// polls again when the history moves (or after LiveParkedGap ticks). With
// the front ends' 100 ms tick, a follower of a command that prints
// nothing for an hour asks about it a handful of times in its first ten
// seconds, then every ten minutes; a quiet command that starts to talk is
// seen as soon as its wake reaches the follower's long poll. The zero
// value is ready; it is not safe for concurrent use.
type LivePace struct {
	quiet, gap, wait int // polls without news, the current gap, ticks left of it
	ticks            int // ticks without news
	// park is the quiet ticks after which a poll without news parks the
	// pace (0: never); parked tells it did.
	park   int
	parked bool
}

// Due tells whether to poll at this tick; waiting: the turn waits for a
// client (or has not begun).
func (p *LivePace) Due(waiting bool) bool { return p.DueAfter(waiting, 1) }

// DueAfter is [LivePace.Due] at a tick that came n ticks after the
// previous one: a follower whose poll took longer than a tick (a loaded
// machine, a slow server) missed the ticks between, and the silence it
// measures is the time that passed, not the ticks it saw.
func (p *LivePace) DueAfter(waiting bool, n int) bool {
	if waiting {
		return false
	}
	n = max(n, 1)
	p.ticks += n
	if p.wait >= n {
		p.wait -= n
		return false
	}
	p.wait = 0
	return true
}

// ParkAfter tells the pace, before [LivePace.Polled], what the poll
// found: the turn would wake its follower (its history would move) should
// it print after ticks quiet ticks; 0: it might print without a wake.
func (p *LivePace) ParkAfter(ticks int) { p.park = ticks }

// ParkTicks is what a follower polling every tick tells
// [LivePace.ParkAfter] for a turn whose [LiveOutput.Wakes] said after:
// twice that silence, which leaves a margin as long again for a heartbeat
// that reached the server late, and never less than LiveQuietPolls.
func ParkTicks(after, tick time.Duration) int {
	if tick <= 0 {
		return 0
	}
	return max(LiveQuietPolls, int((2*after+tick-1)/tick))
}

// Polled records what a poll brought.
func (p *LivePace) Polled(news bool) {
	if news {
		p.Moved()
		return
	}
	p.quiet++
	if p.quiet < LiveQuietPolls {
		return
	}
	// Parked only by a poll made after the whole silence: output written
	// since then comes after a silence that long, so it wakes the turn.
	if p.park > 0 && p.ticks >= p.park {
		p.parked = true
		p.wait = LiveParkedGap - 1
		return
	}
	p.gap = min(max(2*p.gap, 10), LiveMaxGap)
	p.wait = p.gap - 1
}

// Moved records that the turn's log or history moved: look closely again.
func (p *LivePace) Moved() { *p = LivePace{} }

// Quiet is the number of ticks in a row without news.
func (p *LivePace) Quiet() int { return p.ticks }

// Parked tells whether the pace waits for the turn's history to move.
func (p *LivePace) Parked() bool { return p.parked }
