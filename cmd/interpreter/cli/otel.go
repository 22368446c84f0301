package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/worker"
)

// otelOptions reads the [otel] section:
//
//	[otel]
//	endpoint = "http://localhost:4317"   # OTLP endpoint (else OTEL_EXPORTER_OTLP_ENDPOINT)
//	protocol = "grpc"                    # grpc | http/protobuf (else OTEL_EXPORTER_OTLP_PROTOCOL)
//	headers = { authorization = "..." }
//	service_name = "interpreter"
//
// Codex's form is read too: exporter = "none", or exporter = { otlp-grpc =
// { endpoint = "...", headers = {...} } } / { otlp-http = {...} }.
func otelOptions(cfg *config.Config) (o worker.TracingOptions, disabled bool, err error) {
	sec := cfg.Otel
	str := func(m map[string]any, key string) (string, error) {
		v, ok := m[key]
		if !ok {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("invalid otel.%s: want a string, got %v", key, v)
		}
		return s, nil
	}
	headers := func(m map[string]any) (map[string]string, error) {
		v, ok := m["headers"]
		if !ok {
			return nil, nil
		}
		hm, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("invalid otel headers: want a table of strings")
		}
		out := map[string]string{}
		for k, hv := range hm {
			s, ok := hv.(string)
			if !ok {
				return nil, fmt.Errorf("invalid otel header %q: want a string", k)
			}
			out[k] = s
		}
		return out, nil
	}
	if o.Endpoint, err = str(sec, "endpoint"); err != nil {
		return o, false, err
	}
	if o.Protocol, err = str(sec, "protocol"); err != nil {
		return o, false, err
	}
	if o.ServiceName, err = str(sec, "service_name"); err != nil {
		return o, false, err
	}
	if o.Headers, err = headers(sec); err != nil {
		return o, false, err
	}
	switch ex := sec["exporter"].(type) {
	case nil:
	case string:
		if ex == "none" {
			return o, true, nil
		}
		return o, false, fmt.Errorf("invalid otel.exporter %q: use none, or a table { otlp-grpc = {...} } / { otlp-http = {...} }", ex)
	case map[string]any:
		keys := make([]string, 0, len(ex))
		for k := range ex {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			inner, ok := ex[k].(map[string]any)
			if !ok {
				return o, false, fmt.Errorf("invalid otel.exporter.%s: want a table", k)
			}
			switch k {
			case "otlp-grpc":
				o.Protocol = worker.ProtocolGRPC
			case "otlp-http":
				o.Protocol = worker.ProtocolHTTP
			default:
				return o, false, fmt.Errorf("invalid otel.exporter %q: use otlp-grpc or otlp-http", k)
			}
			if o.Endpoint, err = str(inner, "endpoint"); err != nil {
				return o, false, err
			}
			if h, err := headers(inner); err != nil {
				return o, false, err
			} else if h != nil {
				o.Headers = h
			}
		}
	default:
		return o, false, fmt.Errorf("invalid otel.exporter: want none or a table")
	}
	o.ServiceVersion = Version
	return o, false, nil
}

// startTracing starts this process's trace pipeline when [otel] or the
// OTEL_EXPORTER_OTLP_* variables name an endpoint; nil otherwise.
func startTracing(ctx context.Context, cfg *config.Config, logTo io.Writer) (*worker.Tracing, error) {
	o, disabled, err := otelOptions(cfg)
	if err != nil {
		return nil, exitf(2, "%v", err)
	}
	if disabled {
		return nil, nil
	}
	o.Log = logTo
	t, err := worker.StartTracing(ctx, o)
	if err != nil {
		return nil, exitf(2, "tracing: %v", err)
	}
	return t, nil
}

// stopTracing flushes the spans still buffered, briefly: an endpoint that
// is down must not hold up the exit.
func stopTracing(t *worker.Tracing) {
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	t.Shutdown(ctx)
}

// tracingNote is the line `dev` and `worker` print about traces.
func tracingNote(t *worker.Tracing) string {
	if t == nil {
		return "off (set [otel] endpoint or OTEL_EXPORTER_OTLP_ENDPOINT)"
	}
	return "OTLP to " + strings.TrimSpace(t.Target())
}
