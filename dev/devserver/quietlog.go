package devserver

import (
	"context"
	"errors"
	"strings"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// cancelQuiet drops the server's error lines about requests whose caller
// went away (a client that disconnected while its long polls ran:
// GetCurrentExecution, PollWorkflowExecutionHistory): a normal end, not
// an error worth a line.
type cancelQuiet struct{ log.Logger }

func (l cancelQuiet) Error(msg string, tags ...tag.Tag) {
	if !canceled(tags) {
		l.Logger.Error(msg, tags...)
	}
}

func (l cancelQuiet) Warn(msg string, tags ...tag.Tag) {
	if !canceled(tags) {
		l.Logger.Warn(msg, tags...)
	}
}

func canceled(tags []tag.Tag) bool {
	for _, t := range tags {
		z, ok := t.(tag.ZapTag)
		if !ok || z.Key() != "error" {
			continue
		}
		if err, ok := z.Field().Interface.(error); ok &&
			(errors.Is(err, context.Canceled) || strings.Contains(err.Error(), context.Canceled.Error())) {
			return true
		}
	}
	return false
}
