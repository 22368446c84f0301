package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

func readCall(id, path string) activities.DecodedCall {
	return activities.DecodedCall{Call: harness.ToolCall{CallID: id, Name: "read_file"}, Inv: harness.Invocation{Tool: harness.ToolRead, Path: path}}
}

// Consecutive reads of one answer run side by side, a write between them
// runs alone, and the outputs go back in the model's order.
func TestTurnRunsReadsSideBySide(t *testing.T) {
	for _, c := range []struct {
		maxBusy int
	}{{3}} {
		env := newEnv(t)
		model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
			if n == 1 {
				write := activities.DecodedCall{Call: harness.ToolCall{CallID: "w", Name: "write_file"},
					Inv: harness.Invocation{Tool: harness.ToolWrite, Path: "out.txt", Content: "x"}}
				return withCalls(n, "", readCall("r1", "a"), readCall("r2", "b"), readCall("r3", "c"), write, readCall("r4", "d")), nil
			}
			return answer(n, "read them"), nil
		}}
		mockModel(env, model)
		var mu sync.Mutex
		busy, maxBusy, released := 0, 0, false
		var order []string
		env.OnActivity(a.FileTool, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FileToolInput) (*activities.FileToolOutput, error) {
			mu.Lock()
			busy++
			maxBusy = max(maxBusy, busy)
			order = append(order, in.CallID)
			mu.Unlock()
			// A read waits (boundedly) until as many calls run as the
			// may run at once: side by side they all get there.
			for deadline := time.Now().Add(10 * time.Second); in.Inv.Tool == harness.ToolRead && time.Now().Before(deadline); {
				mu.Lock()
				released = released || busy >= c.maxBusy
				done := released
				mu.Unlock()
				if done {
					break
				}
				time.Sleep(time.Millisecond)
			}
			mu.Lock()
			busy--
			mu.Unlock()
			return &activities.FileToolOutput{Output: "contents of " + in.Inv.Path, Success: true}, nil
		})
		env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))
		res := turnResult(t, env)
		require.Equal(t, StatusCompleted, res.Status, res.Error)
		require.Equal(t, c.maxBusy, maxBusy, "calls at once")
		require.Len(t, order, 5)
		require.Equal(t, "w", order[3], "the write runs after the reads before it and before the read after it")
		sent := model.calls()[1].Append
		var ids []string
		for _, e := range sent {
			ids = append(ids, e.CallID)
		}
		require.Equal(t, []string{"r1", "r2", "r3", "w", "r4"}, ids, "outputs in the model's order")
		require.Equal(t, "contents of c", toolOutput(t, sent, "r3").Text)
	}
}
