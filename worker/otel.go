package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"

	"github.com/interpreter-dev/interpreter/workflows"
)

// OTLP protocols (OTEL_EXPORTER_OTLP_PROTOCOL).
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// TracingOptions say where traces go. With no Endpoint the exporter reads
// the standard OTEL_EXPORTER_OTLP_* variables.
type TracingOptions struct {
	// Endpoint is the OTLP endpoint URL (http://host:4317 for gRPC,
	// http://host:4318 for HTTP; /v1/traces is added to an HTTP URL with no
	// path). A URL without a scheme gets http://.
	Endpoint string
	// Protocol is grpc or http/protobuf ("http" is taken for the latter).
	// Empty: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, OTEL_EXPORTER_OTLP_PROTOCOL,
	// else http/protobuf (the OpenTelemetry default).
	Protocol string
	Headers  map[string]string
	// ServiceName is service.name unless OTEL_SERVICE_NAME says otherwise.
	ServiceName    string
	ServiceVersion string
	// Log receives one line when export starts failing and one when it
	// works again; never one per span.
	Log io.Writer
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// Tracing is a process's trace pipeline: the OTLP exporter, the tracer
// provider, and Temporal's tracing interceptor (for the client, and through
// it every worker built on that client).
type Tracing struct {
	Provider    *sdktrace.TracerProvider
	interceptor interceptor.Interceptor
	tracer      trace.Tracer
	target      string
}

// TracingEnabled tells whether options or the environment name an OTLP
// endpoint (OTEL_SDK_DISABLED=true turns tracing off).
func TracingEnabled(o TracingOptions) bool {
	getenv := o.getenv()
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || getenv("OTEL_TRACES_EXPORTER") == "none" {
		return false
	}
	return o.Endpoint != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
}

func (o TracingOptions) getenv() func(string) string {
	if o.Getenv != nil {
		return o.Getenv
	}
	return os.Getenv
}

func (o TracingOptions) protocol() (string, error) {
	p := o.Protocol
	getenv := o.getenv()
	if p == "" {
		p = getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	}
	if p == "" {
		p = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch p {
	case "", ProtocolHTTP, "http":
		return ProtocolHTTP, nil
	case ProtocolGRPC:
		return ProtocolGRPC, nil
	}
	return "", fmt.Errorf("OTLP protocol %q is not supported (use grpc or http/protobuf)", p)
}

// StartTracing builds the trace pipeline, or returns nil when no endpoint
// is configured: then nothing is traced and nothing is exported. An
// endpoint that does not answer does not fail this call; spans are dropped
// and the failure is logged once.
func StartTracing(ctx context.Context, o TracingOptions) (*Tracing, error) {
	if !TracingEnabled(o) {
		return nil, nil
	}
	proto, err := o.protocol()
	if err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = os.Stderr
	}
	target := o.Endpoint
	getenv := o.getenv()
	if target == "" {
		target = getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	}
	if target == "" {
		target = getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	var exp sdktrace.SpanExporter
	switch proto {
	case ProtocolGRPC:
		opts := []otlptracegrpc.Option{
			otlptracegrpc.WithTimeout(10 * time.Second),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: true,
				InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: 5 * time.Second}),
		}
		if o.Endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(withScheme(o.Endpoint)))
		}
		if len(o.Headers) > 0 {
			opts = append(opts, otlptracegrpc.WithHeaders(o.Headers))
		}
		exp, err = otlptracegrpc.New(ctx, opts...)
	default:
		opts := []otlptracehttp.Option{
			otlptracehttp.WithTimeout(10 * time.Second),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true,
				InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: 5 * time.Second}),
		}
		if o.Endpoint != "" {
			opts = append(opts, otlptracehttp.WithEndpointURL(httpTracesURL(o.Endpoint)))
		}
		if len(o.Headers) > 0 {
			opts = append(opts, otlptracehttp.WithHeaders(o.Headers))
		}
		exp, err = otlptracehttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter for %s: %w", target, err)
	}
	name := o.ServiceName
	if name == "" {
		name = "interpreter"
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if o.ServiceVersion != "" {
		attrs = append(attrs, attribute.String("service.version", o.ServiceVersion))
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attrs...))
	if err == nil {
		res, err = resource.Merge(res, resource.Environment())
	}
	if err != nil {
		res = resource.NewSchemaless(attrs...)
	}
	reporter := &reportingExporter{SpanExporter: exp, target: target, proto: proto, log: log}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(reporter, sdktrace.WithBatchTimeout(2*time.Second)),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(quietSampler{sdktrace.ParentBased(sdktrace.AlwaysSample())}),
	)
	installErrorHandler(log)
	t := &Tracing{Provider: tp, tracer: tp.Tracer("github.com/interpreter-dev/interpreter"), target: target}
	t.interceptor, err = temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{
		Tracer:              tp.Tracer("go.temporal.io/sdk"),
		DisableQueryTracing: true,
		SpanStarter:         startTemporalSpan,
	})
	if err != nil {
		_ = tp.Shutdown(ctx)
		return nil, err
	}
	return t, nil
}

// withScheme gives an endpoint without a scheme http://.
func withScheme(endpoint string) string {
	if strings.Contains(endpoint, "://") {
		return endpoint
	}
	return "http://" + endpoint
}

// httpTracesURL adds the traces path to an OTLP/HTTP base URL, as the
// OTEL_EXPORTER_OTLP_ENDPOINT variable is read.
func httpTracesURL(endpoint string) string {
	u, err := url.Parse(withScheme(endpoint))
	if err != nil {
		return endpoint
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String()
}

// Target says where spans are exported to.
func (t *Tracing) Target() string {
	if t == nil {
		return ""
	}
	return t.target
}

// ClientInterceptors are the interceptors for client.Options; workers built
// on that client use them too. Nil tracing gives none.
func (t *Tracing) ClientInterceptors() []interceptor.ClientInterceptor {
	if t == nil {
		return nil
	}
	return []interceptor.ClientInterceptor{t.interceptor}
}

// Shutdown flushes what is buffered, waiting at most until ctx is done.
func (t *Tracing) Shutdown(ctx context.Context) {
	if t == nil {
		return
	}
	_ = t.Provider.Shutdown(ctx)
}

// ForceFlush exports what is buffered now.
func (t *Tracing) ForceFlush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.Provider.ForceFlush(ctx)
}

// startTemporalSpan starts the spans of Temporal's interceptor. Starting a
// turn's child workflow opens a new trace (linked to the thread's span), so
// each turn is one trace: the turn's workflow runs, its continue-as-new
// runs and its activities all descend from it through Temporal headers,
// whichever worker runs them and however often workers restart.
func startTemporalSpan(ctx context.Context, t trace.Tracer, name string, opts ...trace.SpanStartOption) trace.Span {
	if name == "StartChildWorkflow:TurnWorkflow" {
		if parent := trace.SpanContextFromContext(ctx); parent.IsValid() {
			opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: parent,
				Attributes: []attribute.KeyValue{attribute.String("interpreter.link", "thread")}}))
		}
	}
	_, span := t.Start(ctx, name, opts...)
	return span
}

// quietSampler drops the spans of the long-poll that front ends use to
// follow a turn (turn.wait): one per poll, they say nothing about the turn.
type quietSampler struct{ sdktrace.Sampler }

func (s quietSampler) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	if strings.HasSuffix(p.Name, ":"+workflows.UpdateWaitEvents) {
		return sdktrace.SamplingResult{Decision: sdktrace.Drop, Tracestate: trace.SpanContextFromContext(p.ParentContext).TraceState()}
	}
	return s.Sampler.ShouldSample(p)
}

func (s quietSampler) Description() string { return "QuietSampler{" + s.Sampler.Description() + "}" }

// reportingExporter logs the first failed export and the first success
// after failures, and nothing in between: an endpoint that is down costs
// one line, not one per batch or span. It returns nil either way, so the
// SDK does not report the error again.
type reportingExporter struct {
	sdktrace.SpanExporter
	target  string
	proto   string
	log     io.Writer
	failing atomic.Bool
}

func (e *reportingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	if err != nil {
		if !e.failing.Swap(true) {
			fmt.Fprintf(e.log, "interpreter: cannot export traces to %s (OTLP %s): %v; spans are dropped until it answers (reported once)\n",
				e.target, e.proto, err)
		}
		return nil
	}
	if e.failing.Swap(false) {
		fmt.Fprintf(e.log, "interpreter: exporting traces to %s again\n", e.target)
	}
	return nil
}

var errorHandlerOnce sync.Once

// installErrorHandler routes OpenTelemetry's own errors to log, the first
// one only.
func installErrorHandler(log io.Writer) {
	errorHandlerOnce.Do(func() {
		var reported atomic.Bool
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			if err == nil || errors.Is(err, context.Canceled) || reported.Swap(true) {
				return
			}
			fmt.Fprintf(log, "interpreter: OpenTelemetry: %v (further OpenTelemetry errors are not reported)\n", err)
		}))
	})
}
