package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/interpreter-dev/interpreter/activities"
)

// currentDetails reads the thread's current details, as the Temporal UI
// does.
func currentDetails(t *testing.T, env *testsuite.TestWorkflowEnvironment) string {
	t.Helper()
	v, err := env.QueryWorkflow("__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	return md.GetCurrentDetails()
}

// A continuation turn that no one follows waits for its approval
// durably; meanwhile the thread's status reads waiting_for_approval and
// its details say what waits and how to answer. Answered, the turn and
// the goal go on, and the goal's clock left the wait out.
func TestHeadlessApprovalShowsOnTheThread(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		switch n {
		case 1:
			return withCalls(n, "", shellCall("c1", "make deploy")), nil
		case 2:
			return goalCall(n, "done", "update_goal", `{"status":"complete"}`), nil
		}
		return answer(n, "deployed"), nil
	}}
	slowModel(env, model)
	exec := &fakeExec{}
	mockExec(env, exec)
	nt := &notices{}
	env.OnActivity(a.NotifyApproval, mock.Anything, mock.Anything).Return(nt.NotifyApproval)
	var statuses []string
	env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		if s, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(SAStatus); ok {
			statuses = append(statuses, s)
		}
	}).Return(nil)
	cfg := untrusted()
	cfg.Goals = &GoalsConfig{}
	cfg.SearchAttributes = true
	env.RegisterDelayedCallback(func() { setGoalUpdate(env, GoalSetRequest{Objective: "deploy"}) }, 0)
	var waitingStatuses []string
	var waitingDetails string
	env.RegisterDelayedCallback(func() {
		waitingStatuses = append([]string(nil), statuses...)
		waitingDetails = currentDetails(t, env)
		var rejected error
		err := env.UpdateWorkflowByID(TurnWorkflowID(testThreadID, 1), UpdateDecideApproval, "", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { rejected = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
		}, ApprovalDecision{ThreadID: testThreadID, ItemID: "item_0", Decision: DecisionApprove})
		require.NoError(t, err)
		require.NoError(t, rejected)
	}, 3*time.Hour)
	var view ThreadView
	var after string
	env.RegisterDelayedCallback(func() { view = viewThread(t, env); after = currentDetails(t, env); env.CancelWorkflow() }, 4*time.Hour)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: cfg})
	requireCanceled(t, env)

	require.Equal(t, []string{StatusWaitingApproval}, waitingStatuses, "the thread's status while the approval waits")
	require.Contains(t, waitingDetails, "**waiting for approval** · item_0: `make deploy`")
	require.Contains(t, waitingDetails, "interpreter approve "+testThreadID+" item_0")
	require.Contains(t, waitingDetails, "**goal** `active`")
	require.Len(t, nt.all(), 1, "the approval's notice went out")
	require.Len(t, exec.calls(), 1, "the approved command ran")
	require.Equal(t, GoalComplete, view.Goal.Status)
	require.Equal(t, int64(3*60), view.Goal.TimeUsedSeconds, "three model calls of a minute; the three hours' wait left out")
	require.Equal(t, []string{StatusWaitingApproval, StatusInProgress, StatusCompleted}, statuses)
	require.NotContains(t, after, "waiting for approval")
	require.Contains(t, after, "**goal** `complete`")
}
