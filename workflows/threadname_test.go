package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A thread's name is kept in its state and memo; the whole state can be
// read back (unarchiving starts from it).
func TestThreadName(t *testing.T) {
	env := newEnv(t)
	var u updates
	var view ThreadView
	var st ThreadState
	env.RegisterDelayedCallback(func() {
		u.send(env, "name", UpdateSetName, "  Fix the flaky test  ")
		u.send(env, "long", UpdateSetName, string(make([]byte, maxThreadName+1)))
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(QueryThread)
		require.NoError(t, err)
		require.NoError(t, v.Get(&view))
		s, err := env.QueryWorkflow(QueryThreadState)
		require.NoError(t, err)
		require.NoError(t, s.Get(&st))
		archiveThread(env)
	}, 2*time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, u.err("name"))
	require.ErrorContains(t, u.err("long"), "the limit is 1000")
	require.Equal(t, "Fix the flaky test", view.Name)
	require.Equal(t, "Fix the flaky test", st.Name)
	require.Equal(t, testConfig(), st.Config)
}

func TestTimeoutOverrides(t *testing.T) {
	d := func(v time.Duration) *time.Duration { return &v }
	c := ThreadConfig{TurnTimeout: time.Hour, StallTimeout: time.Minute, ApprovalTimeout: time.Minute}
	(*Timeouts)(nil).apply(&c)
	require.Equal(t, time.Hour, c.TurnTimeout)
	(&Timeouts{Stall: d(-time.Second)}).apply(&c)
	require.Equal(t, time.Duration(0), c.StallTimeout, "<= 0 turns the stall timeout off")
	(&Timeouts{Turn: d(10 * time.Minute), Approval: d(0)}).apply(&c)
	require.Equal(t, ThreadConfig{TurnTimeout: 10 * time.Minute}, c)
}
