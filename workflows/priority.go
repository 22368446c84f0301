package workflows

import "go.temporal.io/sdk/temporal"

// Task-queue priorities (1 is served first; Temporal's default is 3). A
// thread's workflow tasks are short (take a turn in, start its child,
// take its result) and a client waits on them (turn/start answers once
// the thread has taken the turn), so they go before the turns' own.
const (
	threadPriorityKey = 2
	turnPriorityKey   = 3
)

// ThreadPriority is the priority a thread workflow starts with. Its
// fairness key is the thread id, which its turns and their activities
// inherit: where the server balances by fairness key
// (matching.enableFairness, on in `interpreter dev`), a thread's tasks
// take their share beside busy threads' backlogs, so a new turn is not
// queued behind every running turn's next task.
func ThreadPriority(threadID string) temporal.Priority {
	return temporal.Priority{PriorityKey: threadPriorityKey, FairnessKey: fairnessKey(threadID)}
}

// fairnessKey bounds a thread id to the server's 64 bytes.
func fairnessKey(threadID string) string {
	if len(threadID) > 64 {
		return threadID[len(threadID)-64:]
	}
	return threadID
}
