// Package threads is the one Go API for talking to threads over a
// Temporal client: start a thread with its first turn, reply with the next
// one, follow a turn's events from a sequence number, steer, interrupt,
// approve and answer, list, read, archive. Every front end (exec, the MCP
// server, the app-server, the threads and approve commands) and the
// integration tests go through it; the workflows and the message names and
// payload types it sends are in package workflows.
//
// A turn is followed as one ordered stream ([Stream]): its logged events
// and the live output of its running commands and model calls, merged,
// which each front end translates into its protocol. Refusals callers
// branch on are sentinel errors ([ErrTurnRunning] and the others), matched
// with errors.Is.
//
// Nothing here runs in a workflow: retries pause on the wall clock.
package threads
