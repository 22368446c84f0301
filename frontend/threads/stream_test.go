package threads

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// countingLive counts polls and never has news.
type countingLive struct {
	mu    sync.Mutex
	polls int
}

func (c *countingLive) Poll(context.Context) ([]LiveChunk, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.polls++
	return nil, nil
}

func (c *countingLive) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.polls
}

// While the turn waits for an approval nothing runs, so nothing is
// polled; once it is resolved polling resumes, and slows down after a
// while without news. (Moved here from the app-server and the MCP
// server, which each had this test for their own poller.)
func TestLivePollingPausesForApprovals(t *testing.T) {
	reader := &countingLive{}
	approval := &workflows.Approval{ItemID: "item_1", Kind: "command"}
	requested, resolve := make(chan struct{}), make(chan struct{})
	src := Source{
		Follow: func(ctx context.Context, _ int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
			fn(workflows.Event{Seq: 1, Type: workflows.EventApprovalRequested, Approval: approval})
			close(requested)
			select {
			case <-resolve:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			fn(workflows.Event{Seq: 2, Type: workflows.EventApprovalResolved, Approval: approval})
			<-ctx.Done()
			return nil, ctx.Err()
		},
		Live: reader,
	}
	s := StreamOf(src, 0, StreamOptions{Poll: time.Millisecond, Begun: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range s.Updates(ctx) {
		}
	}()
	defer func() { cancel(); <-done }()
	<-requested
	// The poller may have polled once before the request was logged.
	before := reader.count()
	time.Sleep(50 * time.Millisecond) // fifty ticks in which no poll may happen
	if n := reader.count() - before; n != 0 {
		t.Fatalf("%d polls while an approval was pending", n)
	}
	close(resolve)
	deadline := time.Now().Add(10 * time.Second)
	for reader.count() < LiveQuietPolls+20 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d polls after the approval was resolved", reader.count())
		}
		time.Sleep(time.Millisecond)
	}
	// Past quietPolls empty polls, one tick in ten polls.
	if polls, quiet := reader.count(), s.Quiet(); polls >= quiet-5 {
		t.Errorf("%d polls in %d quiet ticks: no slowing down", polls, quiet)
	}
}

// scriptedLive answers each poll with the next of its answers.
type scriptedLive struct {
	mu      sync.Mutex
	answers [][]LiveChunk
}

func (l *scriptedLive) Poll(context.Context) ([]LiveChunk, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.answers) == 0 {
		return nil, nil
	}
	a := l.answers[0]
	l.answers = l.answers[1:]
	return a, nil
}

// A retried model call streams its text again from the start: nothing
// of it repeats what went out, and the message's completion carries the
// rest; a character cut between two polls waits for its end.
func TestStreamDoesNotRepeatText(t *testing.T) {
	const answer = "héllo world"
	b := []byte(answer)
	text := func(off int, data []byte) LiveChunk {
		return LiveChunk{Kind: LiveAgentText, Step: 1, Offset: int64(off), Data: data}
	}
	live := &scriptedLive{answers: [][]LiveChunk{
		{text(0, b[:2])}, {text(2, b[2:7])}, {text(0, b[:4])}, // the retry starts over
	}}
	polled := make(chan struct{})
	src := Source{
		Follow: func(ctx context.Context, _ int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
			fn(workflows.Event{Seq: 1, Type: workflows.EventTurnStarted})
			for {
				live.mu.Lock()
				n := len(live.answers)
				live.mu.Unlock()
				if n == 0 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			<-polled
			fn(workflows.Event{Seq: 2, Type: workflows.EventItemCompleted, Item: &workflows.Item{ID: "item_1", Type: workflows.ItemAgentMessage, Text: answer}})
			return &workflows.TurnResult{Status: workflows.StatusCompleted, FinalMessage: answer}, nil
		},
		Live: live,
	}
	go func() { time.Sleep(100 * time.Millisecond); close(polled) }()
	var got []string
	var end Update
	for u := range StreamOf(src, 0, StreamOptions{Poll: time.Millisecond}).Updates(context.Background()) {
		switch u.Kind {
		case UpdateOpened:
			got = append(got, "open")
		case UpdateDelta:
			got = append(got, u.Text)
		case UpdateEvent:
			if u.Streamed != nil {
				got = append(got, "rest:"+u.Streamed.Rest)
			}
		case UpdateEnd:
			end = u
		}
	}
	if want := []string{"open", "h", "éllo ", "rest:world"}; !slices.Equal(got, want) {
		t.Errorf("updates %q, want %q", got, want)
	}
	if end.Err != nil || end.Result == nil || end.Result.FinalMessage != answer {
		t.Errorf("end %+v", end)
	}
}
