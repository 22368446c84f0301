package workflows

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/skills"
)

// kindSkills writes a repository with one skill of each ankole-runtime,
// the background one needing an MCP server.
func kindSkills(t *testing.T) string {
	t.Helper()
	cwd := t.TempDir()
	for _, s := range []struct{ name, runtime, yaml string }{
		{"everywhere", "any", ""},
		{"people", "main", ""},
		{"nightly", "background_job", "dependencies:\n  tools:\n    - {type: mcp, value: reports, transport: stdio, command: reports-mcp}\n"},
	} {
		dir := filepath.Join(cwd, ".agents", "skills", s.name)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "agents"), 0o755))
		md := "---\nname: " + s.name + "\ndescription: The " + s.name + " skill.\nankole-runtime: " + s.runtime + "\n---\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644))
		if s.yaml != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "agents", "openai.yaml"), []byte(s.yaml), 0o644))
		}
	}
	return cwd
}

// The turn's kind of run reaches the discovery on the host (the real
// activity, on real files): a main turn's model requests list the any and
// main skills, a background job's the any and background_job skills, and
// only the background job gets the background skill's MCP server.
func TestTurnSkillsByRunKind(t *testing.T) {
	cwd := kindSkills(t)
	host := &activities.Activities{Home: t.TempDir(), SkillsUserHome: t.TempDir(),
		SkillSettings: func() (skills.Settings, error) { return skills.Settings{NoBundled: true}, nil }}
	cases := []struct {
		kind    string
		skills  []string
		servers []string
	}{
		{kind: "", skills: []string{"everywhere", "people"}},
		{kind: RunKindMain, skills: []string{"everywhere", "people"}},
		{kind: RunKindBackgroundJob, skills: []string{"everywhere", "nightly"}, servers: []string{"reports"}},
	}
	for _, tc := range cases {
		t.Run("kind="+tc.kind, func(t *testing.T) {
			env := newEnv(t)
			env.OnActivity(a.DiscoverSkills, mock.Anything, mock.Anything).Return(
				func(ctx context.Context, in activities.SkillsInput) (*activities.SkillsOutput, error) {
					in.HostQueue = ""
					return host.DiscoverSkills(ctx, in)
				})
			var listed []string
			env.OnActivity(a.MCPListTools, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.MCPListToolsInput) (activities.MCPListToolsOutput, error) {
					for _, s := range in.Servers {
						listed = append(listed, s.Name)
					}
					return activities.MCPListToolsOutput{}, nil
				})
			model := &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) { return answer(n, "done"), nil }}
			mockModel(env, model)
			cfg := testConfig()
			cfg.Cwd = cwd
			in := turnInput(cfg)
			in.RunKind = tc.kind
			env.ExecuteWorkflow(TurnWorkflow, in)

			require.Equal(t, StatusCompleted, turnResult(t, env).Status)
			calls := model.calls()
			require.Len(t, calls, 1)
			var got []string
			for _, s := range calls[0].Env.Skills {
				got = append(got, s.Name)
			}
			require.Equal(t, tc.skills, got)
			require.Equal(t, tc.servers, listed)
		})
	}
}

// A queued turn's kind: what its request says, but a goal's continuation
// turn is a background job whatever it says.
func TestQueuedTurnRunKind(t *testing.T) {
	cases := []struct {
		q    QueuedTurn
		want string
	}{
		{QueuedTurn{}, ""},
		{QueuedTurn{Request: StartTurnRequest{RunKind: RunKindBackgroundJob}}, RunKindBackgroundJob},
		{QueuedTurn{Request: StartTurnRequest{RunKind: RunKindAutomation}}, RunKindAutomation},
		{QueuedTurn{Goal: true}, RunKindBackgroundJob},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, tc.q.runKind(), "%+v", tc.q)
	}
}

func TestNormalRunKind(t *testing.T) {
	for in, want := range map[string]string{"": RunKindMain, "main": RunKindMain, "background_job": RunKindBackgroundJob,
		"automation": RunKindAutomation, "Main": "", "nightly": ""} {
		require.Equal(t, want, NormalRunKind(in), "%q", in)
		if err := checkRunKind(in); want == "" {
			require.ErrorContains(t, err, "unknown run kind")
		} else {
			require.NoError(t, err)
		}
	}
}

// The UI tells a background job's turn from a person's by its summary and
// details.
func TestKindSummary(t *testing.T) {
	cases := []struct {
		q             QueuedTurn
		summary, more string
	}{
		{QueuedTurn{Number: 2, Request: StartTurnRequest{Prompt: "fix it"}}, "turn 2: fix it", ""},
		{QueuedTurn{Number: 1, Request: StartTurnRequest{Prompt: "fix it", RunKind: RunKindMain}}, "turn 1: fix it", ""},
		{QueuedTurn{Number: 1, Request: StartTurnRequest{Prompt: "fix it", RunKind: RunKindBackgroundJob}}, "[background_job] turn 1: fix it", " · run `background_job`"},
		{QueuedTurn{Number: 3, Goal: true}, "turn 3 (goal continuation)", " · run `background_job`"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.summary, kindSummary(tc.q))
		require.Equal(t, tc.more, KindDetails(tc.q.runKind()))
	}
}

// The thread hands each turn the kind its request asked for (a person's
// next turn is main again), and refuses a kind there is no such thing as.
func TestThreadPassesTheRunKind(t *testing.T) {
	env := newEnv(t)
	var kinds []string
	env.OnWorkflow(TurnWorkflow, mock.Anything, mock.Anything).Return(func(_ workflow.Context, in TurnInput) (TurnResult, error) {
		kinds = append(kinds, in.RunKind)
		return TurnResult{TurnID: in.TurnID, Number: in.Number, Status: StatusCompleted, Carried: in.Carried}, nil
	})
	var bad *turnStart
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "unattended", RunKind: RunKindBackgroundJob}) }, 0)
	env.RegisterDelayedCallback(func() { startTurn(env, StartTurnRequest{Prompt: "person"}) }, 10*time.Second)
	env.RegisterDelayedCallback(func() { bad = startTurn(env, StartTurnRequest{Prompt: "x", RunKind: "nightly"}) }, 20*time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: testConfig()})
	requireCanceled(t, env)
	require.Equal(t, []string{RunKindBackgroundJob, ""}, kinds)
	require.ErrorContains(t, bad.rejected, `unknown run kind "nightly"`)
}
