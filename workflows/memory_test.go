package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/interpreter-dev/interpreter/activities"
)

type fakeMemory struct {
	mu       sync.Mutex
	extracts []activities.MemoryInput
	loads    int
}

func (f *fakeMemory) ExtractMemory(_ context.Context, in activities.MemoryInput) (*activities.MemoryOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.extracts = append(f.extracts, in)
	return &activities.MemoryOutput{Facts: 1}, nil
}

func (f *fakeMemory) LoadMemory(_ context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads++
	return "Memory from earlier conversations:\n- likes tabs\n", nil
}

func (f *fakeMemory) extracted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var refs []string
	for _, in := range f.extracts {
		refs = append(refs, in.Transcript)
	}
	return refs
}

// With memories on, a new thread starts with the consolidated memory in its
// instructions, and each time it stays idle after talking its memory is
// extracted, once per conversation state; archiving extracts what is due.
func TestThreadMemories(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "ok"), nil
	}}
	mockModel(env, model)
	mem := &fakeMemory{}
	env.OnActivity(a.ExtractMemory, mock.Anything, mock.Anything).Return(mem.ExtractMemory)
	env.OnActivity(a.LoadMemory, mock.Anything).Return(mem.LoadMemory)

	var afterIdle, afterQuickTurn []string
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "first"}) }, 0)
	// Idle for 10 minutes: extracted once, not again while nothing changes.
	env.RegisterDelayedCallback(func() { afterIdle = mem.extracted() }, 30*time.Minute)
	// A turn, then another before the thread goes idle, then archive.
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "second"}) }, 31*time.Minute)
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "third"}) }, 33*time.Minute)
	env.RegisterDelayedCallback(func() {
		afterQuickTurn = mem.extracted()
		archiveThread(env)
	}, 35*time.Minute)
	cfg := testConfig()
	cfg.Memories = true
	cfg.MemoryIdle = 10 * time.Minute
	cfg.DeveloperInstructions = "be brief"
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: cfg})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())

	require.Equal(t, []string{transcriptRef(1)}, afterIdle)
	require.Equal(t, []string{transcriptRef(1)}, afterQuickTurn, "no extraction while the thread is busy")
	require.Equal(t, []string{transcriptRef(1), transcriptRef(3)}, mem.extracted(), "archiving extracts what is due")
	require.Equal(t, 1, mem.loads, "the memory is loaded once, for the thread's start")
	calls := model.calls()
	require.Len(t, calls, 3)
	for _, c := range calls {
		require.Equal(t, "be brief\n\nMemory from earlier conversations:\n- likes tabs\n", c.Env.DeveloperInstructions)
	}
}

// Memories off (the default): no memory activity at all.
func TestThreadWithoutMemories(t *testing.T) {
	env := newEnv(t)
	mockModel(env, &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "ok"), nil
	}})
	mem := &fakeMemory{}
	env.OnActivity(a.ExtractMemory, mock.Anything, mock.Anything).Return(mem.ExtractMemory)
	env.OnActivity(a.LoadMemory, mock.Anything).Return(mem.LoadMemory)
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "first"}) }, 0)
	env.RegisterDelayedCallback(func() { archiveThread(env) }, time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Empty(t, mem.extracted())
	require.Zero(t, mem.loads)
}
