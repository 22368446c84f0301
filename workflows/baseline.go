package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Versioning, from release 0.1 (the baseline) on:
//
//   - A turn runs start to end on the build that began it: with Worker
//     Deployments its workflow is pinned (worker.Versioning), so turn code
//     changes need no markers. turnCode names the contract between a
//     thread and the turns it starts (TurnInput, TurnResult); a build
//     that changes that contract raises it.
//   - A thread auto-upgrades to the current build at its next workflow
//     task, so every change to thread code sits behind a
//     workflow.GetVersion marker, with a replay history recorded for it
//     (testdata/histories).
//   - Unversioned workers (no deployment) of a new build replace the old
//     ones.
//   - A worker that meets what it cannot run says so and fails that run:
//     a turn of another turn code at once ([checkTurnCode]); a history
//     it cannot replay through the worker's panic policy (FailWorkflow,
//     see worker.Start), which names the workflow in its log; a turn so
//     failed is a failed turn of its thread, with the cause
//     ([abnormalEnd]).

// Release is the release whose baseline this code is.
const Release = "0.1.0"

// turnCode is the turn code of this build: the one a thread writes into
// each new turn's input ([TurnInput.Code]), and the only one its turns
// run.
const turnCode = 1

// ErrTypeTurnCode is the type of the error a turn fails with when its
// input carries a turn code this build does not run.
const ErrTypeTurnCode = "TurnCode"

// abnormalEnd says why a turn's workflow ended without its result. One
// this build's worker could not run (a history it cannot replay, a
// panic: the worker's panic policy failed it) says so with its cause.
func abnormalEnd(err error) string {
	msg := rootMessage(err)
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Unwrap() != nil {
		msg += ": " + rootMessage(app.Unwrap())
	}
	return msg
}

// checkTurnCode refuses a turn whose input carries another turn code
// than this build's, naming both and the build.
func checkTurnCode(ctx workflow.Context, in TurnInput) error {
	if in.Code == turnCode {
		return nil
	}
	build := workflow.GetInfo(ctx).GetCurrentBuildID()
	if build == "" {
		build = "unversioned"
	}
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("turn %s carries turn code %d; this build (release %s, build %s) runs turn code %d only: run it on the build that started it",
			in.TurnID, in.Code, Release, build, turnCode),
		ErrTypeTurnCode, nil)
}
