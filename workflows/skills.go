package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// prepareSkills finds the skills the turn offers, on the workspace host,
// once per turn (so a skill added or disabled shows in the next turn),
// as the turn's kind of run sees them (their ankole-runtime),
// and records them and the MCP servers they need in the turn's state
// ([TurnState.Skills], [TurnState.SkillServers]). A skipped skill is a
// warning item and the turn goes on; two enabled skills that declare the
// same server differently make the preparation fail, naming both.
func (t *turn) prepareSkills(ctx workflow.Context) error {
	if p := t.in.Prefetched; p != nil && p.Skills != nil {
		return t.applySkills(*p.Skills) // found by the thread (quickturn.go)
	}
	out, err := t.discoverSkills(ctx)
	if err != nil {
		if ctx.Err() == nil {
			t.warn("skills are not available in this turn: " + rootMessage(err))
		}
		return nil
	}
	return t.applySkills(out)
}

// applySkills records the skills a discovery found.
func (t *turn) applySkills(out activities.SkillsOutput) error {
	t.showDocs(out.Docs)
	t.st.Skills, t.st.SkillServers = out.Skills, out.Servers
	for _, w := range out.Warnings {
		t.warn(w)
	}
	if out.Conflict != "" {
		t.st.Skills, t.st.SkillServers = nil, nil
		return errors.New(out.Conflict)
	}
	return nil
}

// discoverSkills runs the discovery on the workspace host. When the worker
// running this turn is that host, as with `interpreter dev`, it runs
// in-process (a local activity, inside the current workflow task), which
// saves a workflow task and an activity dispatch per turn; otherwise that
// attempt answers at once that it is elsewhere, and a regular activity on
// the host queue does the work.
func (t *turn) discoverSkills(ctx workflow.Context) (activities.SkillsOutput, error) {
	cfg := t.in.Config
	in := activities.SkillsInput{ThreadID: t.in.ThreadID, Cwd: cfg.Cwd, Docs: t.docsRequest(), Kind: t.in.RunKind}
	var out activities.SkillsOutput
	if cfg.HostQueue != "" {
		out, err := t.skillsHere(ctx, in)
		if err != nil || !out.Elsewhere {
			return out, err
		}
		out = activities.SkillsOutput{}
	}
	opts := workflow.ActivityOptions{
		TaskQueue:           cfg.HostQueue,
		StartToCloseTimeout: time.Minute,
		Summary:             "skills · " + cfg.Cwd,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	}
	err := t.onHost(ctx, opts, acts.DiscoverSkills, in, &out)
	return out, err
}

// skillsHere runs the discovery in-process, as a local activity; its
// answer says Elsewhere when this worker is not the workspace host.
func (t *turn) skillsHere(ctx workflow.Context, in activities.SkillsInput) (activities.SkillsOutput, error) {
	cfg := t.in.Config
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute,
		Summary:             "skills · " + cfg.Cwd,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	in.HostQueue = cfg.HostQueue
	var out activities.SkillsOutput
	err := workflow.ExecuteLocalActivity(lctx, acts.DiscoverSkills, in).Get(ctx, &out)
	return out, err
}

// envSkills is the skills listing the harness renders in the system
// prompt.
func (t *turn) envSkills() []harness.Skill {
	var out []harness.Skill
	for _, s := range t.st.Skills {
		out = append(out, harness.Skill{Name: s.Name, Description: s.Description, Path: s.Path})
	}
	return out
}
