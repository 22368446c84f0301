package exec

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// otlpReceiver is an in-process OTLP/gRPC trace receiver.
type otlpReceiver struct {
	collectortrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []receivedSpan
	addr  string
}

type receivedSpan struct {
	trace, name, service string
	attrs                map[string]string
}

func (r *otlpReceiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := receivedSpan{trace: hex.EncodeToString(s.GetTraceId()), name: s.GetName(), service: service, attrs: map[string]string{}}
				for _, kv := range s.GetAttributes() {
					v := kv.GetValue()
					sp.attrs[kv.GetKey()] = v.GetStringValue()
					if iv, ok := v.GetValue().(*commonpb.AnyValue_IntValue); ok {
						sp.attrs[kv.GetKey()] = fmt.Sprint(iv.IntValue)
					}
				}
				r.spans = append(r.spans, sp)
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func (r *otlpReceiver) find(name, attr, value string) []receivedSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []receivedSpan
	for _, s := range r.spans {
		if s.name == name && (attr == "" || s.attrs[attr] == value) {
			out = append(out, s)
		}
	}
	return out
}

func (r *otlpReceiver) dump() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, s := range r.spans {
		fmt.Fprintf(&b, "%s %s %s %v\n", s.trace[:8], s.service, s.name, s.attrs)
	}
	return b.String()
}

func startOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &otlpReceiver{addr: l.Addr().String()}
	s := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(s, r)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return r
}

// With [otel] set, `dev` (server + worker) and `exec` (front end) export
// spans: the turn's workflow span and its model calls share one trace, and
// the front end's start of the thread is traced too.
func TestTracesExportedWithOtelConfig(t *testing.T) {
	rcv := startOTLPReceiver(t)
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo traced"}, {Text: "traced turn done"},
	}}}})
	otel := []string{"-c", "otel.endpoint=http://" + rcv.addr, "-c", "otel.protocol=grpc", "-c", "otel.service_name=e2e"}
	dev := e.Start(append(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port)}, e.Config()...), otel...)...)
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	defer dev.Kill()
	if !strings.Contains(dev.Stdout.String(), "Traces:          OTLP to http://"+rcv.addr) {
		t.Fatalf("dev does not say where traces go:\n%s", dev.Stdout)
	}
	run := e.Exec(append(otel, "--json", "trace this turn")...)
	if code := run.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec exited %d: %s", code, run.Stderr)
	}
	turnID := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String())) + "/turn-1"
	e2etest.WaitUntil(t, func() bool {
		return len(rcv.find("RunWorkflow:TurnWorkflow", "temporalWorkflowID", turnID)) > 0 &&
			len(rcv.find("chat fake-model", "interpreter.turn_id", turnID)) == 2 &&
			len(rcv.find("UpdateWithStartWorkflow:turn.start", "", "")) > 0
	}, 30*time.Second, "the spans of the turn", func() string { return dev.Stderr.String() + "\n" + rcv.dump() })
	wf := rcv.find("RunWorkflow:TurnWorkflow", "temporalWorkflowID", turnID)[0]
	for _, s := range append(rcv.find("chat fake-model", "interpreter.turn_id", turnID), rcv.find("execute_tool shell", "", "")...) {
		if s.trace != wf.trace {
			t.Fatalf("%s is not in the turn's trace", s.name)
		}
		if s.service != "e2e" {
			t.Fatalf("service.name %q, want e2e", s.service)
		}
	}
	if strings.Contains(dev.Stderr.String()+run.Stderr.String(), "cannot export") {
		t.Fatalf("export failed:\n%s\n%s", dev.Stderr, run.Stderr)
	}
}

// An OTLP endpoint that does not answer (from the standard environment
// variable) does not stop turns, and each process reports it once.
func TestTracingEndpointDownKeepsWorking(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+dead)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo one"}, {Shell: "echo two"}, {Text: "still fine"},
	}}}})
	dev := e.StartDev()
	defer dev.Kill()
	for i := range 2 {
		run := e.Exec("--json", fmt.Sprintf("turn %d", i))
		if code := run.Wait(60 * time.Second); code != 0 {
			t.Fatalf("exec %d exited %d: %s", i, code, run.Stderr)
		}
		if n := strings.Count(run.Stderr.String(), "cannot export traces"); n > 1 {
			t.Fatalf("exec reported the dead endpoint %d times:\n%s", n, run.Stderr)
		}
	}
	dev.WaitFor(func() bool { return strings.Contains(dev.Stderr.String(), "cannot export traces") }, 30*time.Second,
		"dev to report the dead endpoint")
	time.Sleep(5 * time.Second) // more batches fail meanwhile
	if n := strings.Count(dev.Stderr.String(), "cannot export traces"); n != 1 {
		t.Fatalf("dev reported the dead endpoint %d times:\n%s", n, dev.Stderr)
	}
}
