package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
)

// nextAnswer is the step's model answer: the one its thread fetched for
// the turn's first step (quickturn.go), taken over when it was handed
// off, or else a call made now. Input steered in before a prefetched
// answer is read by the next call, as input steered in during a call is.
func (t *turn) nextAnswer(ctx workflow.Context) (*activities.ModelOutput, error) {
	p := t.prefetchedAnswer()
	if p == nil {
		t.takeSteers()
		return t.callModel(ctx)
	}
	if p.Handoff == "" {
		return p, nil
	}
	in := t.modelInput(ctx)
	out, err := t.takeOver(ctx, in, p)
	if err != nil && ctx.Err() == nil && worthRetry(err) {
		return t.callModelRetrying(ctx, in)
	}
	return out, err
}

// prefetchedAnswer is the thread's answer to the first step of the
// turn's first run, once; nil for any other step.
func (t *turn) prefetchedAnswer() *activities.ModelOutput {
	p := t.in.Prefetched
	if p == nil || p.Model == nil || t.in.State != nil || t.st.Step != 1 {
		return nil
	}
	out := p.Model
	p.Model = nil
	return out
}
