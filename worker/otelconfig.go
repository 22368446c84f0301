package worker

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// TracingOptionsFromTable reads the options from config.toml's [otel]
// table:
//
//	[otel]
//	endpoint = "http://localhost:4317"   # OTLP endpoint (else OTEL_EXPORTER_OTLP_ENDPOINT)
//	protocol = "grpc"                    # grpc | http/protobuf (else OTEL_EXPORTER_OTLP_PROTOCOL)
//	headers = { authorization = "..." }
//	service_name = "interpreter"
//
// Codex's form is read too: exporter = "none" (then disabled is true), or
// exporter = { otlp-grpc = { endpoint = "...", headers = {...} } } /
// { otlp-http = {...} }.
func TracingOptionsFromTable(sec map[string]any) (o TracingOptions, disabled bool, err error) {
	if o.Endpoint, err = otelString(sec, "endpoint"); err != nil {
		return o, false, err
	}
	if o.Protocol, err = otelString(sec, "protocol"); err != nil {
		return o, false, err
	}
	if o.ServiceName, err = otelString(sec, "service_name"); err != nil {
		return o, false, err
	}
	if o.Headers, err = otelHeaders(sec); err != nil {
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
				o.Protocol = ProtocolGRPC
			case "otlp-http":
				o.Protocol = ProtocolHTTP
			default:
				return o, false, fmt.Errorf("invalid otel.exporter %q: use otlp-grpc or otlp-http", k)
			}
			if o.Endpoint, err = otelString(inner, "endpoint"); err != nil {
				return o, false, err
			}
			if h, err := otelHeaders(inner); err != nil {
				return o, false, err
			} else if h != nil {
				o.Headers = h
			}
		}
	default:
		return o, false, fmt.Errorf("invalid otel.exporter: want none or a table")
	}
	return o, false, nil
}

func otelString(m map[string]any, key string) (string, error) {
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

func otelHeaders(m map[string]any) (map[string]string, error) {
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

// Stop flushes the spans still buffered, briefly (an endpoint that is down
// must not hold up a process's exit), and shuts the pipeline down. A nil
// Tracing does nothing.
func (t *Tracing) Stop() {
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	t.Shutdown(ctx)
}
