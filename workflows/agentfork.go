package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// fork is the transcript a spawn_agent with fork_context starts its agent
// from: a copy of the asking turn's conversation ([acts.ForkTranscript]),
// kept in the store, so only its reference travels. A forked agent is a
// copy of its parent, so, as in Codex, it takes the parent's role, model
// and reasoning effort; asking for others is refused.
func (t *thread) fork(ctx workflow.Context, r AgentRequest) (string, error) {
	a := r.Args
	switch {
	case a.AgentType != "" && a.AgentType != RoleDefault:
		return "", errors.New("fork_context copies you, role included: leave agent_type out, or spawn without fork_context")
	case a.Model != "" && a.Model != r.Config.Model:
		return "", errors.New("fork_context copies you, model included: leave model out, or spawn without fork_context")
	case a.Effort != "":
		return "", errors.New("fork_context copies you, reasoning effort included: leave reasoning_effort out, or spawn without fork_context")
	}
	if r.Transcript == "" {
		// Nothing said yet: the copy is empty.
		return "", nil
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		Summary:             "fork the conversation for a sub-agent",
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	var out activities.ForkOutput
	if err := workflow.ExecuteActivity(actx, acts.ForkTranscript, activities.ForkInput{Transcript: r.Transcript}).Get(ctx, &out); err != nil {
		return "", errors.New("could not copy this conversation for the agent: " + rootMessage(err))
	}
	return out.Transcript, nil
}
