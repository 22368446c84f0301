package mcpclient_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/dev/mcptest"
)

func TestProbeToolsReportsEachServerInOrder(t *testing.T) {
	servers := []mcpclient.Server{
		stdio("missing", []string{"/nonexistent/mcp-server"}),
		stdio("everything", mcptest.Everything(t)),
	}
	got := mcpclient.ProbeTools(context.Background(), servers, mcpclient.Secrets{})
	if len(got) != 2 {
		t.Fatalf("got %d probes, want 2", len(got))
	}
	if got[0].Status != mcpclient.ProbeFailed || !strings.Contains(got[0].Error, "missing") || got[0].Tools == nil || len(got[0].Tools) != 0 {
		t.Errorf("missing server: %+v", got[0])
	}
	if got[1].Status != mcpclient.ProbeOK || got[1].Error != "" || !slices.Contains(got[1].Tools, "echo") {
		t.Errorf("everything: %+v", got[1])
	}
}
