package workflows

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/harness"
)

var (
	deploySkill = skills.Skill{Name: "deploy", Description: "Deploy the app.", Path: "/work/.agents/skills/deploy/SKILL.md", Scope: skills.ScopeRepo,
		Dependencies: []skills.MCPDependency{{Name: "cloud", Transport: skills.TransportHTTP, URL: "https://cloud/mcp", BearerTokenEnvVar: "CLOUD_TOKEN"}}}
	reviewSkill = skills.Skill{Name: "review", Description: "Review a change.", Path: "/home/u/.agents/skills/review/SKILL.md", Scope: skills.ScopeUser}
)

// The skills found on the workspace host reach the system prompt of every
// model call of the turn; skipped skills are warning items and the turn
// goes on; the merged MCP servers are recorded in the turn's state.
func TestTurnOffersSkills(t *testing.T) {
	env := newEnv(t)
	var got activities.SkillsInput
	var queue string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == "DiscoverSkills" {
			queue = info.TaskQueue
		}
	})
	servers := []skills.MCPDependency{{Name: "cloud", Transport: skills.TransportHTTP, URL: "https://cloud/mcp", BearerTokenEnvVar: "CLOUD_TOKEN", Skills: []string{"deploy"}}}
	env.OnActivity(a.DiscoverSkills, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.SkillsInput) (*activities.SkillsOutput, error) {
		if in.HostQueue != "" {
			// The in-process attempt, on a worker that is not the host.
			return &activities.SkillsOutput{Elsewhere: true}, nil
		}
		got = in
		return &activities.SkillsOutput{Skills: []skills.Skill{deploySkill, reviewSkill}, Servers: servers,
			Warnings: []string{`skill "broken" skipped: openai.yaml: dependencies.tools[0] (value "x"): field "headers": unknown field`}}, nil
	})
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		if n == 1 {
			return withCalls(n, "", shellCall("c1", "cat /work/.agents/skills/deploy/SKILL.md")), nil
		}
		return answer(n, "done"), nil
	}}
	var listed activities.MCPListToolsInput
	env.OnActivity(a.MCPListTools, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.MCPListToolsInput) (activities.MCPListToolsOutput, error) {
			listed = in
			return activities.MCPListToolsOutput{}, nil
		})
	mockModel(env, model)
	mockExec(env, &fakeExec{})
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Equal(t, activities.SkillsInput{ThreadID: testThreadID, Cwd: "/work", Docs: &activities.DocsRequest{Files: harness.CodexDocFiles}}, got)
	// The skill's server joins the turn's MCP servers, by variable name.
	require.Len(t, listed.Servers, 1)
	require.Equal(t, "cloud", listed.Servers[0].Name)
	require.Equal(t, "CLOUD_TOKEN", listed.Servers[0].BearerTokenEnvVar)
	require.Equal(t, "host", queue, "skills are read on the workspace host")
	want := []harness.Skill{
		{Name: "deploy", Description: "Deploy the app.", Path: "/work/.agents/skills/deploy/SKILL.md"},
		{Name: "review", Description: "Review a change.", Path: "/home/u/.agents/skills/review/SKILL.md"},
	}
	calls := model.calls()
	require.Len(t, calls, 2)
	for _, c := range calls {
		require.Equal(t, want, c.Env.Skills)
	}
	errs := itemEvents(queryEvents(t, env).Events, ItemError)
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Item.Message, `skill "broken" skipped`)
	require.Contains(t, errs[0].Item.Message, `field "headers"`)
}

// When the worker running the turn serves the workspace host's queue,
// the discovery runs in-process (a local activity): no activity goes to
// the host queue, and the skills reach the model all the same.
func TestSkillsDiscoveredInProcessOnTheHost(t *testing.T) {
	env := newEnv(t)
	var regular, local []string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		regular = append(regular, info.ActivityType.Name)
	})
	env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, _ []any) {
		local = append(local, info.ActivityType.Name)
	})
	env.OnActivity(a.DiscoverSkills, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.SkillsInput) (*activities.SkillsOutput, error) {
		if in.HostQueue != "host" {
			return nil, fmt.Errorf("asked for host queue %q", in.HostQueue)
		}
		return &activities.SkillsOutput{Skills: []skills.Skill{reviewSkill}}, nil
	})
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) { return answer(n, "done"), nil }}
	mockModel(env, model)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	require.Equal(t, []string{"DiscoverSkills"}, local)
	require.NotContains(t, regular, "DiscoverSkills")
	calls := model.calls()
	require.Len(t, calls, 1)
	require.Equal(t, []harness.Skill{{Name: "review", Description: "Review a change.", Path: "/home/u/.agents/skills/review/SKILL.md"}}, calls[0].Env.Skills)
}

// Two skills declaring the same server differently: the turn fails before
// any model call, naming both skills; nothing else is wedged (the result
// is an ordinary failed turn).
func TestTurnFailsOnConflictingSkills(t *testing.T) {
	env := newEnv(t)
	conflict := `skills "deploy" and "ops" both declare MCP server "cloud", with a different url: make the declarations identical or disable one of the skills`
	env.OnActivity(a.DiscoverSkills, mock.Anything, mock.Anything).Return(&activities.SkillsOutput{
		Skills: []skills.Skill{deploySkill}, Conflict: conflict}, nil)
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "should not be called"), nil
	}}
	mockModel(env, model)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))

	res := turnResult(t, env)
	require.Equal(t, StatusFailed, res.Status)
	require.Equal(t, "preparing the turn: "+conflict, res.Error)
	require.Empty(t, model.calls())
	require.Equal(t, []harness.Entry{{Kind: harness.KindUser, Text: "do the thing"}}, res.Unsent, "the prompt is kept for the next turn")
}

// When the host cannot say (the activity keeps failing), the turn goes on
// without skills and says so.
func TestTurnWithoutSkillsWhenDiscoveryFails(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(a.DiscoverSkills, mock.Anything, mock.Anything).Return(nil, errors.New("disk on fire"))
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		require.Empty(t, in.Env.Skills)
		return answer(n, "ok"), nil
	}}
	mockModel(env, model)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(testConfig()))
	res := turnResult(t, env)
	require.Equal(t, StatusCompleted, res.Status)
	errs := itemEvents(queryEvents(t, env).Events, ItemError)
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Item.Message, "skills are not available in this turn")
	require.Contains(t, errs[0].Item.Message, "disk on fire")
}

// A turn that continued as new keeps the skills it started with and does
// not look again.
func TestContinuedTurnKeepsItsSkills(t *testing.T) {
	env := newEnv(t)
	var discovered atomic.Int32
	env.OnActivity(a.DiscoverSkills, mock.Anything, mock.Anything).Return(func(context.Context, activities.SkillsInput) (*activities.SkillsOutput, error) {
		discovered.Add(1)
		return &activities.SkillsOutput{}, nil
	})
	model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "ok"), nil
	}}
	mockModel(env, model)
	in := turnInput(testConfig())
	in.State = &TurnState{Step: 3, Transcript: "tr-3", NextItem: 5, Skills: []skills.Skill{deploySkill},
		SkillServers: []skills.MCPDependency{deploySkill.Dependencies[0]},
		Pending:      []harness.Entry{{Kind: harness.KindUser, Text: "go on"}}}
	env.ExecuteWorkflow(TurnWorkflow, in)
	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
	require.Zero(t, discovered.Load())
	calls := model.calls()
	require.Len(t, calls, 1)
	require.Equal(t, []harness.Skill{{Name: "deploy", Description: "Deploy the app.", Path: deploySkill.Path}}, calls[0].Env.Skills)
}
