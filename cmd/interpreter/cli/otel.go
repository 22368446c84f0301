package cli

import (
	"context"
	"io"
	"strings"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/worker"
)

// startTracing starts this process's trace pipeline when [otel] or the
// OTEL_EXPORTER_OTLP_* variables name an endpoint; nil otherwise.
func startTracing(ctx context.Context, cfg *config.Config, logTo io.Writer) (*worker.Tracing, error) {
	o, disabled, err := worker.TracingOptionsFromTable(cfg.Otel)
	if err != nil {
		return nil, exitf(2, "%v", err)
	}
	if disabled {
		return nil, nil
	}
	o.ServiceVersion, o.Log = Version, logTo
	t, err := worker.StartTracing(ctx, o)
	if err != nil {
		return nil, exitf(2, "tracing: %v", err)
	}
	return t, nil
}

// tracingNote is the line `dev` and `worker` print about traces.
func tracingNote(t *worker.Tracing) string {
	if t == nil {
		return "off (set [otel] endpoint or OTEL_EXPORTER_OTLP_ENDPOINT)"
	}
	return "OTLP to " + strings.TrimSpace(t.Target())
}
