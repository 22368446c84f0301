package worker

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
)

// spanInterceptor adds a span to each model call (with the OpenTelemetry
// gen_ai attributes: system, model, token usage) and to each tool run,
// under the span of the activity that Temporal's tracing interceptor opens
// (workers place it inside the client's interceptors).
type spanInterceptor struct {
	interceptor.WorkerInterceptorBase
	tracer trace.Tracer
	// hostQueue tells which local commands this worker runs itself.
	hostQueue string
}

// WorkerInterceptors are the interceptors for worker.Options of a worker
// serving the workspace host hostQueue: the spans of model calls and
// tool runs. Nil tracing gives none.
func (t *Tracing) WorkerInterceptors(hostQueue string) []interceptor.WorkerInterceptor {
	if t == nil {
		return nil
	}
	return []interceptor.WorkerInterceptor{&spanInterceptor{tracer: t.tracer, hostQueue: hostQueue}}
}

func (s *spanInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &spanActivity{tracer: s.tracer, hostQueue: s.hostQueue}
	i.Next = next
	return i
}

type spanActivity struct {
	interceptor.ActivityInboundInterceptorBase
	tracer    trace.Tracer
	hostQueue string
}

func (s *spanActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	if len(in.Args) == 1 {
		switch arg := in.Args[0].(type) {
		case activities.ModelInput:
			return s.modelCall(ctx, in, &arg)
		case *activities.ModelInput:
			return s.modelCall(ctx, in, arg)
		case activities.ExecInput:
			return s.shell(ctx, in, &arg)
		case *activities.ExecInput:
			return s.shell(ctx, in, arg)
		case activities.LocalExecInput:
			return s.localShell(ctx, in, &arg)
		case *activities.LocalExecInput:
			return s.localShell(ctx, in, arg)
		case activities.CompactInput:
			return s.compaction(ctx, in, &arg)
		case *activities.CompactInput:
			return s.compaction(ctx, in, arg)
		case activities.PatchInput:
			return s.patch(ctx, in, &arg)
		case *activities.PatchInput:
			return s.patch(ctx, in, arg)
		}
	}
	return s.Next.ExecuteActivity(ctx, in)
}

// genAISystem names the provider as gen_ai.system does (openai,
// anthropic, ...); other providers go by their id.
func genAISystem(p activities.ProviderSpec) string {
	if p.ID == "" {
		return "openai"
	}
	return p.ID
}

func (s *spanActivity) modelCall(ctx context.Context, in *interceptor.ExecuteActivityInput, mi *activities.ModelInput) (any, error) {
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.system", genAISystem(mi.Provider)),
		attribute.String("gen_ai.provider.name", genAISystem(mi.Provider)),
		attribute.String("gen_ai.request.model", mi.Model),
		attribute.String("interpreter.thread_id", mi.ThreadID),
		attribute.String("interpreter.turn_id", mi.TurnID),
		attribute.Int("interpreter.step", mi.Step),
		attribute.String("interpreter.harness", mi.Harness),
		attribute.String("interpreter.wire_api", mi.Provider.WireAPI),
	}
	if u, err := url.Parse(mi.Provider.BaseURL); err == nil && u.Host != "" {
		host, port, err := net.SplitHostPort(u.Host)
		if err != nil {
			host = u.Host
		}
		attrs = append(attrs, attribute.String("server.address", host))
		if n, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, attribute.Int("server.port", n))
		}
	}
	if activity.IsActivity(ctx) {
		attrs = append(attrs, attribute.Int("interpreter.attempt", int(activity.GetInfo(ctx).Attempt)))
	}
	ctx, span := s.tracer.Start(ctx, "chat "+mi.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	res, err := s.Next.ExecuteActivity(ctx, in)
	if err != nil {
		failSpan(span, err)
		return res, err
	}
	if out, ok := res.(*activities.ModelOutput); ok && out != nil {
		finish := "stop"
		if len(out.Calls) > 0 {
			finish = "tool_calls"
		}
		span.SetAttributes(
			attribute.Int64("gen_ai.usage.input_tokens", out.Usage.InputTokens),
			attribute.Int64("gen_ai.usage.output_tokens", out.Usage.OutputTokens),
			attribute.Int64("gen_ai.usage.cache_read.input_tokens", out.Usage.CachedInputTokens),
			attribute.StringSlice("gen_ai.response.finish_reasons", []string{finish}),
			attribute.Int("interpreter.tool_calls", len(out.Calls)),
		)
	}
	return res, err
}

// compaction is a model call too: it carries the gen_ai attributes.
func (s *spanActivity) compaction(ctx context.Context, in *interceptor.ExecuteActivityInput, ci *activities.CompactInput) (any, error) {
	ctx, span := s.tracer.Start(ctx, "compact "+ci.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.system", genAISystem(ci.Provider)),
		attribute.String("gen_ai.provider.name", genAISystem(ci.Provider)),
		attribute.String("gen_ai.request.model", ci.Model),
		attribute.String("interpreter.thread_id", ci.ThreadID),
		attribute.String("interpreter.turn_id", ci.TurnID),
	))
	defer span.End()
	res, err := s.Next.ExecuteActivity(ctx, in)
	if err != nil {
		failSpan(span, err)
		return res, err
	}
	if out, ok := res.(*activities.CompactOutput); ok && out != nil {
		span.SetAttributes(
			attribute.Int64("gen_ai.usage.input_tokens", out.Usage.InputTokens),
			attribute.Int64("gen_ai.usage.output_tokens", out.Usage.OutputTokens),
			attribute.Int("interpreter.entries_before", out.EntriesBefore),
			attribute.Int("interpreter.entries_after", out.EntriesAfter),
		)
	}
	return res, err
}

func (s *spanActivity) shell(ctx context.Context, in *interceptor.ExecuteActivityInput, ei *activities.ExecInput) (any, error) {
	ctx, span := s.startShell(ctx, ei)
	defer span.End()
	if ei.Resume != "" {
		// The rest of a command a local activity started (its own span).
		span.SetAttributes(attribute.Bool("interpreter.resumed", true))
	}
	res, err := s.Next.ExecuteActivity(ctx, in)
	if err != nil {
		failSpan(span, err)
		return res, err
	}
	if out, ok := res.(*activities.ExecOutput); ok {
		shellOutcome(span, out)
	}
	return res, err
}

// localShell is the span of a command run as a local activity, when this
// worker serves its host (another answers that it runs elsewhere, and the
// regular activity there has the span). A command handed off has a
// second span, of the activity that waits for its end.
func (s *spanActivity) localShell(ctx context.Context, in *interceptor.ExecuteActivityInput, li *activities.LocalExecInput) (any, error) {
	if li.HostQueue == "" || li.HostQueue != s.hostQueue {
		return s.Next.ExecuteActivity(ctx, in)
	}
	ctx, span := s.startShell(ctx, &li.Exec)
	defer span.End()
	span.SetAttributes(attribute.Bool("interpreter.local", true))
	res, err := s.Next.ExecuteActivity(ctx, in)
	if err != nil {
		failSpan(span, err)
		return res, err
	}
	out, ok := res.(*activities.LocalExecOutput)
	switch {
	case !ok || out == nil:
	case out.Handoff != "":
		span.SetAttributes(attribute.Bool("interpreter.handed_off", true))
	case out.StartedBefore:
		span.SetStatus(codes.Error, "started before")
	default:
		shellOutcome(span, out.Output)
	}
	return res, err
}

func (s *spanActivity) startShell(ctx context.Context, ei *activities.ExecInput) (context.Context, trace.Span) {
	return s.tracer.Start(ctx, "execute_tool shell", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "shell"),
		attribute.String("gen_ai.tool.type", "function"),
		attribute.String("gen_ai.tool.call.id", ei.CallID),
		attribute.String("interpreter.thread_id", ei.ThreadID),
		attribute.String("process.command_line", clipAttr(strings.Join(ei.Command, " "), 1000)),
		attribute.String("process.working_directory", ei.Cwd),
	))
}

func shellOutcome(span trace.Span, out *activities.ExecOutput) {
	if out == nil {
		return
	}
	span.SetAttributes(
		attribute.Int("process.exit.code", out.ExitCode),
		attribute.Int64("interpreter.output_bytes", out.TotalBytes),
		attribute.Bool("interpreter.timed_out", out.TimedOut),
	)
	if out.StartError != "" {
		span.SetStatus(codes.Error, out.StartError)
	}
}

func (s *spanActivity) patch(ctx context.Context, in *interceptor.ExecuteActivityInput, pi *activities.PatchInput) (any, error) {
	ctx, span := s.tracer.Start(ctx, "execute_tool apply_patch", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "apply_patch"),
		attribute.String("gen_ai.tool.type", "function"),
		attribute.String("gen_ai.tool.call.id", pi.CallID),
		attribute.String("interpreter.thread_id", pi.ThreadID),
	))
	defer span.End()
	res, err := s.Next.ExecuteActivity(ctx, in)
	if err != nil {
		failSpan(span, err)
		return res, err
	}
	if out, ok := res.(*activities.PatchOutput); ok && out != nil {
		span.SetAttributes(attribute.Bool("interpreter.patch.success", out.Success),
			attribute.Int("interpreter.patch.files", len(out.Changes)))
		if !out.Success {
			span.SetStatus(codes.Error, clipAttr(out.Output, 200))
		}
	}
	return res, err
}

func failSpan(span trace.Span, err error) {
	span.RecordError(err)
	span.SetStatus(codes.Error, clipAttr(err.Error(), 500))
	typ := "error"
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() != "" {
		typ = app.Type()
	}
	span.SetAttributes(attribute.String("error.type", typ))
}

func clipAttr(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
