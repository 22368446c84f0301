package worker

import (
	"strings"
	"testing"
)

func TestTracingOptionsFromTable(t *testing.T) {
	o, off, err := TracingOptionsFromTable(map[string]any{
		"endpoint": "http://a:4318", "service_name": "svc", "headers": map[string]any{"k": "v"},
	})
	if err != nil || off || o.Endpoint != "http://a:4318" || o.ServiceName != "svc" || o.Headers["k"] != "v" {
		t.Fatalf("plain table: %+v %v %v", o, off, err)
	}
	o, _, err = TracingOptionsFromTable(map[string]any{
		"exporter": map[string]any{"otlp-grpc": map[string]any{"endpoint": "http://b:4317", "headers": map[string]any{"x": "y"}}},
	})
	if err != nil || o.Protocol != ProtocolGRPC || o.Endpoint != "http://b:4317" || o.Headers["x"] != "y" {
		t.Fatalf("codex form: %+v %v", o, err)
	}
	if _, off, err := TracingOptionsFromTable(map[string]any{"exporter": "none"}); err != nil || !off {
		t.Fatalf("exporter none: %v %v", off, err)
	}
	for _, bad := range []map[string]any{
		{"endpoint": 3},
		{"headers": "x"},
		{"headers": map[string]any{"k": 1}},
		{"exporter": "otlp"},
		{"exporter": map[string]any{"zipkin": map[string]any{}}},
		{"exporter": map[string]any{"otlp-http": "x"}},
		{"exporter": 1},
	} {
		if _, _, err := TracingOptionsFromTable(bad); err == nil || !strings.Contains(err.Error(), "invalid otel") {
			t.Errorf("%v: want an invalid otel error, got %v", bad, err)
		}
	}
}
