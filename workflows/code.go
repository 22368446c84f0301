package workflows

import "go.temporal.io/sdk/workflow"

// turnCode is the turn code a thread writes into each new turn's input.
//
// Every change to turn code so far sits behind its own version marker
// (approvals, auto-compaction, dynamic tools, MCP servers, skills, skills
// in-process), and a marker is not free: besides its event, the SDK
// upserts the TemporalChangeVersion search attribute with it, one more
// event and one more visibility write per change per turn. A turn whose
// input carries code 1 takes all of those changes without asking: the
// input is in the turn's history, so a replay takes the same branches.
// Turns started by older builds (code 0) still ask, and their recorded
// histories replay as before.
//
// Code 2 adds model calls that first wait in the workflow task
// ([ModelCallsAuto]).
//
// Code 3 reports how long an interrupted command ran, and the output it
// had shown ([interruptedReport]), where earlier turns reported 0 ms and
// no output.
//
// Code 4 makes each attempt of a model call in the workflow, following
// the provider's request_max_retries and stream_max_retries and logging a
// model.retry event before each new attempt ([retryCode]), and ends a
// failed turn's workflow as failed and an interrupted one's as canceled,
// their result in the error's details ([turn.closeWith]); earlier turns
// left the retries to Temporal and always completed.
//
// Code 5 runs the calls of one answer that only read side by side
// ([turn.runTools]).
//
// Code 6 offers the sub-agent tools to threads whose config turns them
// on ([subAgentCode]).
//
// Code 7 ([liveCode]) lets an idle open turn cost little: a shell
// command's heartbeat timeout grows to [commandHeartbeat] (its worker
// heartbeats a quarter of that while it prints nothing), an interrupt
// stops a running command straight away through [acts.StopCommand] on the
// workspace host's queue, and a model call's worker is taken for lost
// after [modelHeartbeat] without a heartbeat, or when its own queue does
// not pick a handed-off call up within [handoffPickup].
//
// Code 8 bounds how long a tool call waits for its workspace host's
// worker: a warning after seconds, a failed turn after host_wait when no
// worker polls the host queue ([turn.onHost]).
//
// Code 9 ([lostWorkerCode]) lets a lost worker's handed-off model call be
// made afresh by the server, on the shared queue, right after its
// heartbeat timeout (now [handoffHeartbeat]), instead of by a workflow
// task that first waited out the dead worker's sticky queue; bounds a
// tool call's wait by host_wait also when the host's worker is listed as
// a poller but takes nothing (a worker that died lately); and gives MCP
// tool listing and calls, approval notices and exec_command sessions the
// same bounded wait for their host ([turn.onHostFrom]).
//
// Code 10 ([closeApartCode]) closes a turn in a workflow task of its own
// when the task that ends it made a model call as a local activity, so an
// event arriving meanwhile cannot fail that task (UNHANDLED_COMMAND) and
// have the call made again.
//
// Code 11 ([agentToolsCode]) offers a harness's own sub-agent tool where
// its CLI has one (claude-code's Task, kimi-cli's Agent: spawn, wait for
// the end of the agent's turn, close), and in the thread starts a
// spawn_agent with fork_context from a copy of the parent's conversation
// and counts agents.max_threads over the whole tree of the root thread;
// code-6 to code-10 turns get Codex's five tools in every harness,
// fork_context refused and max_threads counted per thread.
//
// Code 12 ([agentNotifyCode]) takes a sub-agent's end-of-turn notice,
// which its thread passes on, into the next model request, as Codex's
// <subagent_notification> user message.
//
// A later change either records its own marker as before or raises
// turnCode and is taken without a marker from that code on.
//
// Unlike a marker, a code is not checked by an older build: a worker that
// predates code N runs a code-N turn with its own, older branches, and a
// newer worker could not replay that history. That is why turn workflows
// are pinned to the build that began them when workers run in a Worker
// Deployment (worker.Versioning): builds then run side by side during a
// rolling upgrade, each turn on its own. Unversioned workers of a new
// build must replace the old ones instead.
const turnCode = agentNotifyCode

// liveCode is the turn code of cheap idle turns and quick failover (see
// turnCode).
const liveCode = 7

// changed tells whether the turn runs the new side of changeID, a change
// made before turn code 1 (each of those has versions 0 and 1 only).
func (t *turn) changed(ctx workflow.Context, changeID string) bool {
	if t.in.Code >= 1 {
		return true
	}
	return workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, 1) == 1
}
