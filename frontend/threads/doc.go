// Package threads is the one Go API for talking to threads over a
// Temporal client: start a thread with its first turn, reply with the next
// one, follow a turn's events from a sequence number, steer, interrupt,
// approve and answer, list, read, archive. Every front end (exec, the MCP
// server, the app-server, the threads and approve commands) and the
// integration tests go through it; the workflows and the message names and
// payload types it sends are in package workflows.
//
// Nothing here runs in a workflow: retries pause on the wall clock.
package threads
