package workflows

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// Reads run on the workspace host and leave no item; edits are file
// changes; a failed edit is a failed item and a tool error for the model.
func TestTurnFileTools(t *testing.T) {
	env := newEnv(t)
	read := activities.DecodedCall{Call: harness.ToolCall{CallID: "r1", Name: "Read"},
		Inv: harness.Invocation{Tool: harness.ToolRead, Path: "/work/a.go"}}
	edit := activities.DecodedCall{Call: harness.ToolCall{CallID: "e1", Name: "Edit"},
		Inv: harness.Invocation{Tool: harness.ToolEdit, Path: "/work/a.go", Edits: []harness.Edit{{Old: "x", New: "y"}}}}
	bad := activities.DecodedCall{Call: harness.ToolCall{CallID: "e2", Name: "Edit"},
		Inv: harness.Invocation{Tool: harness.ToolEdit, Path: "/work/a.go", Edits: []harness.Edit{{Old: "zzz", New: "y"}}}}
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", read, edit, bad), nil
		}
		return answer(n, "done"), nil
	}}
	mockModel(env, model)
	var got []activities.FileToolInput
	env.OnActivity(a.FileTool, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FileToolInput) (*activities.FileToolOutput, error) {
			got = append(got, in)
			switch in.CallID {
			case "r1":
				return &activities.FileToolOutput{Success: true, Output: "     1\tx\n"}, nil
			case "e1":
				return &activities.FileToolOutput{Success: true, Output: "Edited a.go",
					Changes: []activities.FileChange{{Path: "a.go", Kind: "update"}}}, nil
			}
			return &activities.FileToolOutput{Output: "error: not found"}, nil
		})
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Len(t, got, 3)
	require.Equal(t, "/work", got[0].Cwd)
	require.Equal(t, "r1", got[0].CallID)

	outs := model.calls()[1].Append
	require.Equal(t, "     1\tx\n", outs[0].Text)
	require.False(t, outs[0].Error)
	require.Equal(t, "Edited a.go", outs[1].Text)
	require.Equal(t, "error: not found", outs[2].Text)
	require.True(t, outs[2].Error)

	changes := itemEvents(queryEvents(t, env).Events, ItemFileChange)
	require.Len(t, changes, 4, "two edits, started and completed; no item for the read")
	require.Equal(t, StatusCompleted, changes[1].Item.Status)
	require.Equal(t, []FileChange{{Path: "a.go", Kind: "update"}}, changes[1].Item.Changes)
	require.Equal(t, StatusFailed, changes[3].Item.Status)
}

// In a read-only sandbox, writes and edits are declined without running.
func TestTurnFileToolsReadOnly(t *testing.T) {
	env := newEnv(t)
	write := activities.DecodedCall{Call: harness.ToolCall{CallID: "w1", Name: "Write"},
		Inv: harness.Invocation{Tool: harness.ToolWrite, Path: "a.go", Content: "x"}}
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", write), nil
		}
		return answer(n, "done"), nil
	}}
	mockModel(env, model)
	ran := 0
	env.OnActivity(a.FileTool, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FileToolInput) (*activities.FileToolOutput, error) {
			ran++
			return &activities.FileToolOutput{Success: true}, nil
		})
	cfg := testConfig()
	cfg.SandboxMode = "read-only"
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	require.Zero(t, ran)
	out := toolOutput(t, model.calls()[1].Append, "w1")
	require.Contains(t, out.Text, "read-only")
	changes := itemEvents(queryEvents(t, env).Events, ItemFileChange)
	require.Len(t, changes, 1)
	require.Equal(t, StatusDeclined, changes[0].Item.Status)
}

// A harness with a start-up context exchange gathers it on the workspace
// host once, at the start of the thread, and sends it before the prompt.
func TestTurnStartupContext(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "ok"), nil
	}}
	mockModel(env, model)
	var got []activities.FileToolInput
	env.OnActivity(a.FileTool, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FileToolInput) (*activities.FileToolOutput, error) {
			got = append(got, in)
			return &activities.FileToolOutput{Success: true, Startup: &harness.StartupInfo{OS: "linux", Cwd: "/work", Listing: "/work/\n└── a.go"}}, nil
		})
	cfg := testConfig()
	cfg.Harness = "qwen-code"
	env.ExecuteWorkflow(TurnWorkflow, turnInput(cfg))
	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	require.Len(t, got, 1)
	require.Equal(t, activities.ToolStartup, got[0].Inv.Tool)
	sent := model.calls()[0].Append
	require.Len(t, sent, 3)
	require.True(t, sent[0].Context)
	require.Equal(t, harness.KindUser, sent[0].Kind)
	require.Contains(t, sent[0].Text, "linux")
	require.Contains(t, sent[0].Text, "└── a.go")
	require.Equal(t, harness.KindAssistant, sent[1].Kind)
	require.Equal(t, "do the thing", sent[2].Text)

	// A later turn of the thread (a transcript exists) does not repeat it.
	env2 := newEnv(t)
	model2 := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) { return answer(n, "ok"), nil }}
	mockModel(env2, model2)
	in := turnInput(cfg)
	in.Transcript = "tr-prev"
	env2.ExecuteWorkflow(TurnWorkflow, in)
	require.Equal(t, StatusCompleted, turnResult(t, env2).Status)
	require.Len(t, model2.calls()[0].Append, 1)
}

// A first turn that failed before its first answer hands its start-up
// context on unsent; the next turn does not gather it again.
func TestTurnStartupContextNotRepeated(t *testing.T) {
	env := newEnv(t)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) { return answer(n, "ok"), nil }}
	mockModel(env, model)
	cfg := testConfig()
	cfg.Harness = "qwen-code"
	in := turnInput(cfg)
	in.Unsent = []harness.Entry{{Kind: harness.KindUser, Text: "ctx", Context: true}, {Kind: harness.KindAssistant, Text: "ack", Context: true},
		{Kind: harness.KindUser, Text: "first prompt"}}
	env.ExecuteWorkflow(TurnWorkflow, in)
	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	sent := model.calls()[0].Append
	require.Len(t, sent, 4)
	require.Equal(t, "ctx", sent[0].Text)
}
