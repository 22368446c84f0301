package activities

import (
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
)

func TestOversizedResultIsPermanent(t *testing.T) {
	err := checkPayload(&ModelOutput{Message: strings.Repeat("x", MaxPayload)})
	var app *temporal.ApplicationError
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("got %v", err)
	}
	if !errors.As(err, &app) || !app.NonRetryable() {
		t.Fatalf("oversized result must be non-retryable: %v", err)
	}
	if err := checkPayload(&ModelOutput{Message: "small"}); err != nil {
		t.Fatal(err)
	}
}
