package workflows

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

func TestTurnRunsShellThenAnswers(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "Let me look.", shellCall("c1", "ls -la")), nil
		}
		return answer(n, "There are two files."), nil
	}}
	exec := &fakeExec{result: func(activities.ExecInput) (*activities.ExecOutput, error) {
		return &activities.ExecOutput{ExitCode: 0, Output: "a\nb\n", DurationMs: 1500}, nil
	}}
	mockModel(env, model)
	mockExec(env, exec)

	cfg := testConfig()
	cfg.MaxToolOutput = 4096
	in := turnInput(cfg)
	in.Transcript = "tr-prev"
	in.NextItem = 7
	env.ExecuteWorkflow(TurnWorkflow, in)

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Empty(t, res.Error)
	require.Equal(t, "There are two files.", res.FinalMessage)
	require.Equal(t, 2, res.Steps)
	require.Equal(t, harness.Usage{InputTokens: 200, CachedInputTokens: 100, OutputTokens: 20}, res.Usage)
	require.Equal(t, transcriptRef(2), res.Transcript)
	require.Equal(t, 10, res.NextItem, "three items numbered from the thread's counter")
	require.Equal(t, testTurnID, res.TurnID)
	require.Equal(t, 1, res.Number)

	// What the model saw.
	calls := model.calls()
	require.Len(t, calls, 2)
	require.Equal(t, "tr-prev", calls[0].Transcript)
	require.Equal(t, []harness.Entry{{Kind: harness.KindUser, Text: "do the thing"}}, calls[0].Append)
	require.Equal(t, 1, calls[0].Step)
	require.Equal(t, "test-model", calls[0].Model)
	require.Equal(t, "/work", calls[0].Env.Cwd)
	require.Equal(t, transcriptRef(1), calls[1].Transcript)
	require.Equal(t, 2, calls[1].Step)
	require.Len(t, calls[1].Append, 1)
	out := toolOutput(t, calls[1].Append, "c1")
	require.Equal(t, "shell", out.Name)
	require.Equal(t, "Exit code: 0\nWall time: 1.5 seconds\nOutput:\na\nb\n", out.Text)

	// What ran.
	execs := exec.calls()
	require.Len(t, execs, 1)
	require.Equal(t, activities.ExecInput{ThreadID: testThreadID, CallID: "c1",
		Command: []string{"bash", "-lc", "ls -la"}, Cwd: "/work", MaxOutput: 4096, WorkspaceRoot: "/work"}, execs[0])

	// What front ends read.
	page := queryEvents(t, env)
	require.True(t, page.Done)
	require.Equal(t, 1, page.First)
	require.Equal(t, 6, page.Last)
	requireSeqs(t, page.Events)
	require.Equal(t, []string{
		"turn.started",
		"item.completed:agent_message",
		"item.started:command_execution",
		"item.completed:command_execution",
		"item.completed:agent_message",
		"turn.completed",
	}, eventKinds(page.Events))
	ev := page.Events
	require.Equal(t, &Item{ID: "item_7", Type: ItemAgentMessage, Text: "Let me look."}, ev[1].Item)
	started, done := ev[2].Item, ev[3].Item
	require.Equal(t, "item_8", started.ID)
	require.Equal(t, StatusInProgress, started.Status)
	require.Equal(t, "ls -la", started.Command)
	require.Nil(t, started.ExitCode)
	require.Equal(t, "item_8", done.ID)
	require.Equal(t, StatusCompleted, done.Status)
	require.NotNil(t, done.ExitCode)
	require.Equal(t, 0, *done.ExitCode)
	require.Equal(t, "a\nb\n", done.AggregatedOutput)
	require.Equal(t, int64(1500), done.DurationMs)
	require.Equal(t, "/work", done.Cwd)
	require.Equal(t, &Item{ID: "item_9", Type: ItemAgentMessage, Text: "There are two files."}, ev[4].Item)
	require.NotNil(t, ev[5].Usage)
	require.Equal(t, res.Usage, *ev[5].Usage)

	// Paging.
	v, err := env.QueryWorkflow(QueryEvents, EventsRequest{After: 2, Limit: 2})
	require.NoError(t, err)
	var p EventsPage
	require.NoError(t, v.Get(&p))
	require.Len(t, p.Events, 2)
	require.Equal(t, 3, p.Events[0].Seq)
	require.False(t, p.Done, "a partial page is not the end")
}

func TestTurnShellCommandStatus(t *testing.T) {
	for _, tc := range []struct {
		name       string
		out        *activities.ExecOutput
		err        error
		status     string
		modelSees  []string
		exitCode   *int
		aggregated string
	}{
		{name: "non-zero exit fails the item", out: &activities.ExecOutput{ExitCode: 2, Output: "no such file\n", DurationMs: 10},
			status: StatusFailed, modelSees: []string{"Exit code: 2", "no such file"}, exitCode: ptr(2), aggregated: "no such file\n"},
		{name: "activity error", err: errors.New("workspace host is gone"),
			status: StatusFailed, modelSees: []string{"error: could not run the command", "workspace host is gone"}, aggregated: "workspace host is gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
				if n == 1 {
					return withCalls(n, "", shellCall("c1", "cat x")), nil
				}
				return answer(n, "done"), nil
			}}
			mockModel(env, model)
			env.OnActivity(a.Exec, mock.Anything, mock.Anything).Return(tc.out, tc.err).Once()
			env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

			res := turnResult(t, env)
			require.Equal(t, StatusCompleted, res.Status)
			env.AssertExpectations(t)
			out := toolOutput(t, model.calls()[1].Append, "c1")
			require.True(t, containsAll(out.Text, tc.modelSees...), "model saw %q", out.Text)
			items := itemEvents(queryEvents(t, env).Events, ItemCommandExecution)
			require.Len(t, items, 2)
			it := items[1].Item
			require.Equal(t, tc.status, it.Status)
			require.Equal(t, tc.exitCode, it.ExitCode)
			require.Contains(t, it.AggregatedOutput, tc.aggregated)
		})
	}
}

func ptr[T any](v T) *T { return &v }

// A command whose worker died (heartbeat timeout) must not run again: its
// outcome is unknown and the model is told so.
func TestTurnShellRunsAtMostOnce(t *testing.T) {
	for _, timeout := range []enumspb.TimeoutType{enumspb.TIMEOUT_TYPE_HEARTBEAT, enumspb.TIMEOUT_TYPE_START_TO_CLOSE} {
		t.Run(timeout.String(), func(t *testing.T) {
			env := newEnv(t)
			model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
				if n == 1 {
					return withCalls(n, "", shellCall("c1", "make deploy")), nil
				}
				return answer(n, "I could not tell whether it ran."), nil
			}}
			mockModel(env, model)
			env.OnActivity(a.Exec, mock.Anything, mock.Anything).
				Return(nil, temporal.NewTimeoutError(timeout, nil)).Once()
			env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

			res := turnResult(t, env)
			require.Equal(t, StatusCompleted, res.Status)
			require.Equal(t, 2, res.Steps)
			env.AssertExpectations(t)
			env.AssertNumberOfCalls(t, "Exec", 1)

			items := itemEvents(queryEvents(t, env).Events, ItemCommandExecution)
			require.Len(t, items, 2)
			require.Equal(t, EventItemCompleted, items[1].Type)
			require.Equal(t, StatusInterrupted, items[1].Item.Status)
			require.Nil(t, items[1].Item.ExitCode)
			require.Contains(t, items[1].Item.AggregatedOutput, "outcome is unknown")

			out := toolOutput(t, model.calls()[1].Append, "c1")
			require.Contains(t, out.Text, "outcome is unknown")
			require.Contains(t, out.Text, "NOT run again")
		})
	}
}

func TestTurnModelErrors(t *testing.T) {
	t.Run("non-retryable error fails the turn", func(t *testing.T) {
		env := newEnv(t)
		env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(nil,
			temporal.NewNonRetryableApplicationError("provider openai answered 401: bad key", activities.ErrTypeProvider, nil)).Once()
		env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

		res := turnResult(t, env)
		env.AssertExpectations(t) // not retried
		require.Equal(t, StatusFailed, res.Status)
		require.Contains(t, res.Error, "provider openai answered 401: bad key")
		require.Equal(t, 1, res.Steps)
		page := queryEvents(t, env)
		require.True(t, page.Done)
		require.Equal(t, []string{"turn.started", "turn.failed"}, eventKinds(page.Events))
		require.Equal(t, res.Error, page.Events[1].Error)
	})
	t.Run("retryable error is retried", func(t *testing.T) {
		env := newEnv(t)
		env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(nil,
			temporal.NewApplicationError("provider openai answered 503: busy", activities.ErrTypeProvider)).Twice()
		env.OnActivity(a.CallModel, mock.Anything, mock.Anything).Return(answer(1, "hi"), nil).Once()
		env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

		res := turnResult(t, env)
		env.AssertExpectations(t)
		require.Equal(t, StatusCompleted, res.Status)
		require.Equal(t, "hi", res.FinalMessage)
		require.Equal(t, 1, res.Steps)
	})
}

func TestTurnStopsAtMaxSteps(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return withCalls(n, "", shellCall("c"+itoa(n), "true")), nil
	}}
	exec := &fakeExec{}
	mockModel(env, model)
	mockExec(env, exec)
	cfg := testConfig()
	cfg.MaxSteps = 2
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))

	res := turnResult(t, env)
	require.Equal(t, StatusFailed, res.Status)
	require.Contains(t, res.Error, "max_steps (2)")
	require.Equal(t, 2, res.Steps)
	require.Len(t, model.calls(), 2)
	require.Len(t, exec.calls(), 2)
	page := queryEvents(t, env)
	last := page.Events[len(page.Events)-1]
	require.Equal(t, EventTurnFailed, last.Type)
	require.Equal(t, res.Error, last.Error)
}

func TestTurnTimeoutInterruptsRunningCommand(t *testing.T) {
	env := newEnv(t)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	env.SetStartTime(start)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return withCalls(n, "", shellCall("c1", "sleep 3600")), nil
	}}
	mockModel(env, model)
	env.OnActivity(a.Exec, mock.Anything, mock.Anything).After(time.Hour).
		Return(&activities.ExecOutput{ExitCode: 0}, nil).Once()
	var canceled []string
	env.SetOnActivityCanceledListener(func(info *activity.Info) { canceled = append(canceled, info.ActivityType.Name) })
	cfg := testConfig()
	cfg.TurnTimeout = 10 * time.Minute
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))

	res := turnResult(t, env)
	require.Equal(t, StatusInterrupted, res.Status)
	require.Contains(t, res.Error, "timed out after 10m0s")
	require.Equal(t, start.Add(10*time.Minute), env.Now().UTC(), "the turn ends when its timer fires, not when the command would")
	require.Equal(t, []string{"Exec"}, canceled)
	require.Len(t, model.calls(), 1, "an interrupted turn does not call the model again")

	page := queryEvents(t, env)
	items := itemEvents(page.Events, ItemCommandExecution)
	require.Len(t, items, 2)
	require.Equal(t, StatusInterrupted, items[1].Item.Status)
	last := page.Events[len(page.Events)-1]
	require.Equal(t, EventTurnCompleted, last.Type)
	require.Equal(t, res.Error, last.Error)
}

func TestTurnToolCallsThatDoNotRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		call      activities.DecodedCall
		modelSees string
		errorItem string // empty: no error item
	}{
		{
			name: "decode error",
			call: activities.DecodedCall{
				Call: harness.ToolCall{CallID: "c1", Name: "shell", Arguments: `{"command": "ls"`},
				Inv:  harness.Invocation{Error: "invalid arguments: unexpected EOF"},
			},
			modelSees: "error: invalid arguments: unexpected EOF",
			errorItem: "tool shell: invalid arguments: unexpected EOF",
		},
		{
			name: "unknown tool",
			call: activities.DecodedCall{
				Call: harness.ToolCall{CallID: "c1", Name: "web_search", Arguments: `{}`},
				Inv:  harness.Invocation{Tool: "web_search"},
			},
			modelSees: `error: tool "web_search" is not available`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
				if n == 1 {
					return withCalls(n, "", tc.call), nil
				}
				return answer(n, "ok"), nil
			}}
			exec := &fakeExec{}
			mockModel(env, model)
			mockExec(env, exec)
			env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

			res := turnResult(t, env)
			require.Equal(t, StatusCompleted, res.Status)
			require.Empty(t, exec.calls())
			out := toolOutput(t, model.calls()[1].Append, "c1")
			require.Equal(t, tc.modelSees, out.Text)
			require.Equal(t, tc.call.Call.Name, out.Name)

			events := queryEvents(t, env).Events
			require.Empty(t, itemEvents(events, ItemCommandExecution))
			errs := itemEvents(events, ItemError)
			if tc.errorItem == "" {
				require.Empty(t, errs)
				return
			}
			require.Len(t, errs, 1)
			require.Equal(t, EventItemCompleted, errs[0].Type)
			require.Equal(t, tc.errorItem, errs[0].Item.Message)
		})
	}
}

func TestTurnPatchAndPlan(t *testing.T) {
	const patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: b.go\n@@\n-x\n+y\n*** End Patch"
	for _, tc := range []struct {
		name   string
		out    *activities.PatchOutput
		err    error
		status string
		reply  string
	}{
		{name: "applied", status: StatusCompleted, reply: "Success. Updated the following files:\nA a.txt\nM b.go",
			out: &activities.PatchOutput{Success: true, Output: "Success. Updated the following files:\nA a.txt\nM b.go",
				Changes: []activities.FileChange{{Path: "a.txt", Kind: "add"}, {Path: "b.go", Kind: "update"}}}},
		{name: "did not apply", status: StatusFailed, reply: "patch does not apply",
			out: &activities.PatchOutput{Success: false, Output: "patch does not apply"}},
		{name: "activity error", status: StatusFailed, reply: "error: applying the patch failed: disk full",
			err: temporal.NewNonRetryableApplicationError("disk full", "IOError", nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
				if n > 1 {
					return answer(n, "done"), nil
				}
				return withCalls(n, "",
					activities.DecodedCall{
						Call: harness.ToolCall{CallID: "plan1", Name: "update_plan"},
						Inv: harness.Invocation{Tool: harness.ToolPlan, Plan: []harness.PlanStep{
							{Step: "read", Status: "completed"}, {Step: "edit", Status: "in_progress"}, {Step: "test", Status: "pending"}}},
					},
					activities.DecodedCall{
						Call: harness.ToolCall{CallID: "p1", Name: "apply_patch"},
						Inv:  harness.Invocation{Tool: harness.ToolPatch, Patch: patch},
					}), nil
			}}
			mockModel(env, model)
			var got []activities.PatchInput
			env.OnActivity(a.ApplyPatch, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.PatchInput) (*activities.PatchOutput, error) {
					got = append(got, in)
					return tc.out, tc.err
				})
			env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

			res := turnResult(t, env)
			require.Equal(t, StatusCompleted, res.Status)
			require.Equal(t, []activities.PatchInput{{ThreadID: testThreadID, CallID: "p1", Cwd: "/work", Patch: patch}}, got)

			append2 := model.calls()[1].Append
			require.Len(t, append2, 2, "one output per call, in call order")
			require.Equal(t, "plan1", append2[0].CallID)
			require.Equal(t, "Plan updated", append2[0].Text)
			require.Equal(t, "p1", append2[1].CallID)
			// HasPrefix: rootMessage keeps the SDK's "(type: ..., retryable: ...)"
			// suffix on application errors.
			require.True(t, strings.HasPrefix(append2[1].Text, tc.reply), "model saw %q", append2[1].Text)

			events := queryEvents(t, env).Events
			todos := itemEvents(events, ItemTodoList)
			require.Len(t, todos, 1)
			require.Equal(t, EventItemCompleted, todos[0].Type)
			require.Equal(t, []TodoItem{{Text: "read", Completed: true}, {Text: "edit"}, {Text: "test"}}, todos[0].Item.Items)

			changes := itemEvents(events, ItemFileChange)
			require.Len(t, changes, 2)
			require.Equal(t, EventItemStarted, changes[0].Type)
			require.Equal(t, StatusInProgress, changes[0].Item.Status)
			require.Equal(t, EventItemCompleted, changes[1].Type)
			require.Equal(t, changes[0].Item.ID, changes[1].Item.ID)
			require.Equal(t, tc.status, changes[1].Item.Status)
			if tc.out != nil {
				require.Len(t, changes[1].Item.Changes, len(tc.out.Changes))
				for i, c := range tc.out.Changes {
					require.Equal(t, FileChange{Path: c.Path, Kind: c.Kind}, changes[1].Item.Changes[i])
				}
			}
		})
	}
}
