package devtest

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
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"google.golang.org/grpc"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/worker"
	"github.com/interpreter-dev/interpreter/workflows"
)

// span is one received span, flattened.
type span struct {
	Trace, ID, Parent string
	Name              string
	Attrs             map[string]string
	Links             []string // trace ids
}

// receiver is an in-process OTLP/gRPC trace receiver.
type receiver struct {
	collectortrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []span
	addr  string
}

func (r *receiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := span{Trace: hex.EncodeToString(s.GetTraceId()), ID: hex.EncodeToString(s.GetSpanId()),
					Parent: hex.EncodeToString(s.GetParentSpanId()), Name: s.GetName(), Attrs: map[string]string{}}
				for _, kv := range s.GetAttributes() {
					sp.Attrs[kv.GetKey()] = anyValue(kv.GetValue())
				}
				for _, l := range s.GetLinks() {
					sp.Links = append(sp.Links, hex.EncodeToString(l.GetTraceId()))
				}
				r.spans = append(r.spans, sp)
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func anyValue(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, anyValue(e))
		}
		return strings.Join(parts, ",")
	}
	return v.String()
}

func (r *receiver) all() []span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]span(nil), r.spans...)
}

func startReceiver(t *testing.T) *receiver {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{addr: l.Addr().String()}
	s := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(s, r)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return r
}

// syncLog collects what the tracing pipeline logs.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tracing starts a trace pipeline exporting to endpoint over gRPC.
func startTracing(t *testing.T, endpoint string, log *syncLog) *worker.Tracing {
	t.Helper()
	tr, err := worker.StartTracing(context.Background(), worker.TracingOptions{
		Endpoint: "http://" + endpoint, Protocol: worker.ProtocolGRPC, Log: log, ServiceName: "interpreter-test",
		Getenv: func(string) string { return "" },
	})
	if err != nil || tr == nil {
		t.Fatalf("starting tracing: %v %v", tr, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		tr.Shutdown(ctx)
	})
	return tr
}

// startThread starts a thread with one turn through c.
func startThread(t *testing.T, c client.Client, cfg workflows.ThreadConfig, id, prompt string) string {
	t.Helper()
	resp, err := threads.Start(context.Background(), c, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: cfg},
		workflows.StartTurnRequest{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	return resp.TurnID
}

// turnTrace finds the trace of a turn: the trace of its workflow spans.
func turnTrace(t *testing.T, spans []span, turnID string) (trace string, runs []span) {
	t.Helper()
	for _, s := range spans {
		if s.Name == "RunWorkflow:TurnWorkflow" && s.Attrs["temporalWorkflowID"] == turnID {
			if trace != "" && s.Trace != trace {
				t.Fatalf("turn %s spans two traces: %s and %s", turnID, trace, s.Trace)
			}
			trace = s.Trace
			runs = append(runs, s)
		}
	}
	if trace == "" {
		t.Fatalf("no workflow span of turn %s among %d spans:\n%s", turnID, len(spans), spanNames(spans))
	}
	return trace, runs
}

func spanNames(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "  %s %s<-%s %s %v\n", s.Trace[:8], s.ID[:8], s.Parent, s.Name, s.Attrs["temporalWorkflowID"])
	}
	return b.String()
}

// under tells whether s descends from one of the spans in ancestors.
func under(spans []span, s span, ancestors []span) bool {
	byID := map[string]span{}
	for _, x := range spans {
		byID[x.ID] = x
	}
	want := map[string]bool{}
	for _, a := range ancestors {
		want[a.ID] = true
	}
	for p := s.Parent; p != ""; {
		if want[p] {
			return true
		}
		x, ok := byID[p]
		if !ok {
			return false
		}
		p = x.Parent
	}
	return false
}

func named(spans []span, trace, name string) []span {
	var out []span
	for _, s := range spans {
		if s.Trace == trace && s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// One turn is one trace: the turn's workflow span, with the model calls
// (gen_ai attributes) and the tool run under it, whether model calls are
// local activities or not.
func TestTurnIsOneTrace(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo traced"}, {Text: "done", Usage: &fakemodel.Usage{InputTokens: 1234, OutputTokens: 56}},
	}}}})
	rcv := startReceiver(t)
	log := &syncLog{}
	tr := startTracing(t, rcv.addr, log)
	c := w.Dial(tr.ClientInterceptors()...)
	w.StartWorker(WorkerOptions{Name: "traced", Client: c, Tracing: tr})

	for _, local := range []bool{true, false} {
		t.Run(fmt.Sprintf("local_model_calls=%v", local), func(t *testing.T) {
			cfg := w.Config("")
			cfg.LocalModelCalls = local
			turnID := startThread(t, c, cfg, fmt.Sprintf("traced-%v-%d", local, time.Now().UnixNano()), "trace me")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if res, err := threads.Outcome(ctx, c, turnID); err != nil || res.Status != workflows.StatusCompleted {
				t.Fatalf("turn: %+v %v", res, err)
			}
			var spans []span
			var trace string
			var runs []span
			waitFor(t, func() bool {
				_ = tr.ForceFlush(ctx)
				spans = rcv.all()
				for _, s := range spans {
					if s.Name == "RunWorkflow:TurnWorkflow" && s.Attrs["temporalWorkflowID"] == turnID {
						return true
					}
				}
				return false
			}, "the turn's workflow span")
			trace, runs = turnTrace(t, spans, turnID)
			var inTrace []span
			for _, s := range spans {
				if s.Trace == trace {
					inTrace = append(inTrace, s)
				}
			}
			t.Logf("the turn's trace:\n%s", spanNames(inTrace))

			chats := named(spans, trace, "chat fake-model")
			if len(chats) != 2 {
				t.Fatalf("want 2 model-call spans in the turn's trace, got %d:\n%s", len(chats), spanNames(spans))
			}
			for _, s := range chats {
				if !under(spans, s, runs) {
					t.Fatalf("model-call span %s is not under the turn's workflow span:\n%s", s.ID, spanNames(spans))
				}
				for k, v := range map[string]string{"gen_ai.system": "fake", "gen_ai.request.model": "fake-model",
					"gen_ai.operation.name": "chat", "interpreter.turn_id": turnID} {
					if s.Attrs[k] != v {
						t.Errorf("model-call span: %s = %q, want %q", k, s.Attrs[k], v)
					}
				}
				if s.Attrs["gen_ai.usage.input_tokens"] == "" || s.Attrs["gen_ai.usage.output_tokens"] == "" {
					t.Errorf("model-call span has no token usage: %v", s.Attrs)
				}
			}
			last := chats[0]
			if chats[1].Attrs["interpreter.step"] == "2" {
				last = chats[1]
			}
			if last.Attrs["gen_ai.usage.input_tokens"] != "1234" || last.Attrs["gen_ai.usage.output_tokens"] != "56" {
				t.Errorf("second model call's usage: %v", last.Attrs)
			}
			tools := named(spans, trace, "execute_tool shell")
			if len(tools) != 1 || !under(spans, tools[0], runs) {
				t.Fatalf("want one tool span under the turn's workflow span:\n%s", spanNames(spans))
			}
			if tools[0].Attrs["process.exit.code"] != "0" || !strings.Contains(tools[0].Attrs["process.command_line"], "echo traced") {
				t.Errorf("tool span attributes: %v", tools[0].Attrs)
			}
			// The trace starts at the turn (linked to its thread), not at the
			// thread, so a thread's turns are separate traces.
			roots := 0
			for _, s := range spans {
				if s.Trace == trace && s.Parent == "" {
					roots++
					if s.Name != "StartChildWorkflow:TurnWorkflow" || len(s.Links) != 1 {
						t.Errorf("root of the turn's trace: %s links %v", s.Name, s.Links)
					}
				}
			}
			if roots != 1 {
				t.Errorf("%d roots in the turn's trace", roots)
			}
			for _, s := range spans {
				if strings.HasSuffix(s.Name, ":turn.wait") {
					t.Errorf("a turn.wait poll was traced: %s", s.Name)
				}
			}
		})
	}
	if log.String() != "" {
		t.Errorf("tracing logged: %s", log)
	}
}

// A worker that goes away in the middle of a turn does not split the
// turn's trace: the worker that takes over replays the turn and continues
// it in the same trace (Temporal carries the span context in headers).
func TestTraceSurvivesWorkerRestart(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "sleep 3; echo slow"}, {Text: "done after the restart"},
	}}}})
	rcv := startReceiver(t)
	trA := startTracing(t, rcv.addr, &syncLog{})
	cA := w.Dial(trA.ClientInterceptors()...)
	// Tools run on their own host worker, which stays up.
	w.StartWorker(WorkerOptions{Name: "host", HostQueue: "host-restart", ToolsOnly: true, Client: cA, Tracing: trA})
	a := w.StartWorker(WorkerOptions{Name: "shared-a", HostQueue: "host-a-unused", Client: cA, Tracing: trA})

	cfg := w.Config("host-restart")
	cfg.LocalModelCalls = true
	turnID := startThread(t, cA, cfg, fmt.Sprintf("restart-%d", time.Now().UnixNano()), "survive a restart")
	waitFor(t, func() bool { return len(w.Model.Server.Requests()) >= 1 }, "the first model call")
	time.Sleep(500 * time.Millisecond) // the command is running on the host worker
	a.Stop()
	sdkworker.PurgeStickyWorkflowCache()

	trB := startTracing(t, rcv.addr, &syncLog{})
	cB := w.Dial(trB.ClientInterceptors()...)
	w.StartWorker(WorkerOptions{Name: "shared-b", HostQueue: "host-b-unused", Client: cB, Tracing: trB})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := threads.Outcome(ctx, cB, turnID)
	if err != nil || res.Status != workflows.StatusCompleted || res.FinalMessage != "done after the restart" {
		t.Fatalf("turn: %+v %v", res, err)
	}
	var spans []span
	waitFor(t, func() bool {
		_ = trA.ForceFlush(ctx)
		_ = trB.ForceFlush(ctx)
		spans = rcv.all()
		return countRuns(spans, turnID) >= 2
	}, "workflow spans of the turn from both workers")
	trace, runs := turnTrace(t, spans, turnID)
	chats := named(spans, trace, "chat fake-model")
	if len(chats) != 2 {
		t.Fatalf("want both model calls in the turn's one trace, got %d:\n%s", len(chats), spanNames(spans))
	}
	for _, s := range append(chats, named(spans, trace, "execute_tool shell")...) {
		if !under(spans, s, runs) {
			t.Fatalf("span %s is not under a workflow span of the turn:\n%s", s.Name, spanNames(spans))
		}
	}
	for _, s := range spans {
		if s.Attrs["temporalWorkflowID"] == turnID && s.Trace != trace {
			t.Fatalf("span %s of the turn is in another trace:\n%s", s.Name, spanNames(spans))
		}
	}
}

func countRuns(spans []span, turnID string) int {
	n := 0
	for _, s := range spans {
		if s.Name == "RunWorkflow:TurnWorkflow" && s.Attrs["temporalWorkflowID"] == turnID {
			n++
		}
	}
	return n
}

// An OTLP endpoint that is down changes nothing for turns, and the failure
// is logged once, not once per span or batch.
func TestTracingEndpointDown(t *testing.T) {
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo a"}, {Text: "fine"},
	}}}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	log := &syncLog{}
	tr := startTracing(t, dead, log)
	c := w.Dial(tr.ClientInterceptors()...)
	w.StartWorker(WorkerOptions{Name: "traced", Client: c, Tracing: tr})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := range 3 {
		turnID := startThread(t, c, w.Config(""), fmt.Sprintf("down-%d-%d", i, time.Now().UnixNano()), "go on")
		if res, err := threads.Outcome(ctx, c, turnID); err != nil || res.Status != workflows.StatusCompleted {
			t.Fatalf("turn %d: %+v %v", i, res, err)
		}
		_ = tr.ForceFlush(ctx)
	}
	if got := strings.Count(log.String(), "cannot export traces"); got != 1 {
		t.Fatalf("logged %d export failures, want 1:\n%s", got, log)
	}
	if !strings.Contains(log.String(), dead) {
		t.Fatalf("the report does not name the endpoint: %s", log)
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
