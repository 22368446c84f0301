package devserver

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.temporal.io/server/common/log/tag"
)

func TestCancelQuietDropsOnlyCancellations(t *testing.T) {
	if !canceled([]tag.Tag{tag.Operation("GetCurrentExecution"), tag.Error(fmt.Errorf("poll: %w", context.Canceled))}) {
		t.Error("a wrapped context.Canceled is not recognised")
	}
	if !canceled([]tag.Tag{tag.Error(errors.New("rpc error: code = Canceled desc = context canceled"))}) {
		t.Error("a cancellation's text from another process is not recognised")
	}
	if canceled([]tag.Tag{tag.Error(errors.New("database is locked"))}) {
		t.Error("a real error is dropped")
	}
}
