package workflows

import (
	"fmt"
	"strings"
)

// TurnWorkflowID names the child workflow of a thread's n-th turn.
func TurnWorkflowID(threadID string, n int) string {
	return threadID + "/turn-" + itoa(n)
}

// TurnIDError says that a turn id was given where a thread id belongs.
type TurnIDError struct {
	TurnID, ThreadID string
}

func (e *TurnIDError) Error() string {
	return fmt.Sprintf("that is a turn id (%s); its thread is %s", e.TurnID, e.ThreadID)
}

// CheckThreadID refuses a turn id (as [TurnWorkflowID] makes them) where
// a thread id belongs, naming its thread.
func CheckThreadID(id string) error {
	i := strings.LastIndex(id, "/turn-")
	if i <= 0 {
		return nil
	}
	n := id[i+len("/turn-"):]
	if n == "" || strings.Trim(n, "0123456789") != "" {
		return nil
	}
	return &TurnIDError{TurnID: id, ThreadID: id[:i]}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
