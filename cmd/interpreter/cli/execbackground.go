package cli

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	execfe "github.com/interpreter-dev/interpreter/frontend/exec"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// checkBackground refuses what `exec --background` cannot do, before
// anything starts: there is no answer to write yet, a resume needs a
// prompt to run, and a server embedded in this process would end with it.
func (e *ExecCmd) checkBackground(cfg *config.Config, threadID, prompt string) error {
	if !e.Background {
		return nil
	}
	switch {
	case e.LastMessage != "":
		return exitf(2, "--background returns before the turn has an answer: --output-last-message cannot be used with it (read the answer later with `interpreter threads show`)")
	case threadID != "" && prompt == "":
		return exitf(2, "exec resume --background needs a PROMPT to run")
	case cfg.Temporal.Embedded != nil && *cfg.Temporal.Embedded:
		return exitf(2, "--background needs a Temporal server and worker that outlive this command, and temporal.embedded=true runs them in it: start `interpreter dev` (or a worker) and leave temporal.embedded unset")
	}
	return nil
}

// startBackground starts the thread as a background job once a worker
// is known to take it.
func (e *ExecCmd) startBackground(ctx context.Context, cfg *config.Config, b *backend, s *execfe.Session, nt threads.NewThread, req workflows.StartTurnRequest, stdio Stdio) error {
	if err := needWorker(ctx, cfg, b); err != nil {
		return err
	}
	var goal *workflows.GoalSetRequest
	if e.Goal != "" {
		goal = &workflows.GoalSetRequest{Objective: e.Goal, Status: workflows.GoalActive, Origin: workflows.GoalByUser}
		if e.GoalBudget > 0 {
			goal.TokenBudget = &e.GoalBudget
		}
	}
	if err := s.StartBackground(ctx, nt, req, goal); err != nil {
		return err
	}
	e.announce(cfg, b, stdio, nt.ThreadID)
	return nil
}

func (e *ExecCmd) resumeBackground(ctx context.Context, cfg *config.Config, b *backend, s *execfe.Session, threadID string, req workflows.StartTurnRequest, stdio Stdio) error {
	if err := needWorker(ctx, cfg, b); err != nil {
		return err
	}
	if err := s.ResumeBackground(ctx, threadID, req); err != nil {
		return err
	}
	e.announce(cfg, b, stdio, threadID)
	return nil
}

// needWorker refuses a background job when no worker polls the task
// queue: starting the thread waits for a worker to take its turn, so
// exec would not return, and nobody would run the job. A server this
// command just started in the background brings its own worker.
func needWorker(ctx context.Context, cfg *config.Config, b *backend) error {
	if b.background || b.embedded {
		return nil
	}
	resp, err := b.client.WorkflowService().DescribeTaskQueue(ctx, &workflowservice.DescribeTaskQueueRequest{
		Namespace:     cfg.Temporal.Namespace,
		TaskQueue:     &taskqueuepb.TaskQueue{Name: cfg.Temporal.TaskQueue, Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
		TaskQueueType: enumspb.TASK_QUEUE_TYPE_WORKFLOW,
	})
	if err != nil {
		return exitf(1, "asking whether a worker polls task queue %q: %v", cfg.Temporal.TaskQueue, err)
	}
	if len(resp.GetPollers()) == 0 {
		return exitf(1, "--background: no worker polls task queue %q at %s, so nothing would run the job; start `interpreter dev` or `interpreter worker` first",
			cfg.Temporal.TaskQueue, cfg.Temporal.Address)
	}
	return nil
}
