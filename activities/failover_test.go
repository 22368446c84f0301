package activities

import (
	"context"
	"errors"
	"slices"
	"testing"

	"go.temporal.io/sdk/temporal"
)

// A failed take-over's error has one of the types the workflow lists as
// not for the server to retry; a cancellation and a typed error stay as
// they are.
func TestAttemptErrorIsOfAListedType(t *testing.T) {
	var app *temporal.ApplicationError
	if err := attemptError(errors.New("writing the transcript: disk full")); !errors.As(err, &app) ||
		!slices.Contains(ModelAttemptErrorTypes, app.Type()) || app.NonRetryable() || app.Message() != "writing the transcript: disk full" {
		t.Fatalf("plain error became %#v", err)
	}
	stream := temporal.NewApplicationError("broke off", ErrTypeStream)
	if err := attemptError(stream); err != stream {
		t.Fatalf("typed error became %v", err)
	}
	if err := attemptError(context.Canceled); err != context.Canceled {
		t.Fatalf("cancellation became %v", err)
	}
	if attemptError(nil) != nil {
		t.Fatal("nil became an error")
	}
}
