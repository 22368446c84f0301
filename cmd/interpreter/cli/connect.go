package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/workflows"
)

// connect reaches the configured Temporal server. When nothing answers at a
// local address and the embedded server is allowed, it brings the embedded
// one up in this process (on the default database, so state persists) and
// says so on stderr.
func connect(ctx context.Context, cfg *config.Config, stderr io.Writer) (*backend, error) {
	return connectHosting(ctx, cfg, stderr, nil)
}

// connectHosting is connect that, before it brings a server and worker up
// in or for this process (whose environment the worker then has), asks
// hosting whether this process may host them.
func connectHosting(ctx context.Context, cfg *config.Config, stderr io.Writer, hosting func() error) (*backend, error) {
	t := cfg.Temporal
	forced := t.Embedded != nil && *t.Embedded
	allowed := t.Embedded == nil || *t.Embedded
	if !forced && probe(ctx, t) {
		tr, err := startTracing(ctx, cfg, stderr)
		if err != nil {
			return nil, err
		}
		c, err := dial(ctx, t, t.Address, stderr, tr.ClientInterceptors()...)
		if err != nil {
			tr.Stop()
			return nil, err
		}
		b := &backend{client: c, tracing: tr}
		warnNoWorker(ctx, b, cfg, stderr)
		return b, nil
	}
	host, portStr, err := net.SplitHostPort(t.Address)
	local := err == nil && (host == "127.0.0.1" || host == "localhost" || host == "::1")
	if !allowed || !local {
		return nil, exitf(1, "no Temporal server answers at %s (start one with `interpreter dev`, or set temporal.address)", t.Address)
	}
	if hosting != nil {
		if err := hosting(); err != nil {
			return nil, err
		}
	}
	port, _ := strconv.Atoi(portStr)
	db := defaultDB(cfg)
	if forced {
		fmt.Fprintf(stderr, "interpreter: starting the embedded Temporal server in this process (state in %s)\n", db)
		return startEmbedded(ctx, cfg, embedOptions{DBFile: db, Port: port}, stderr)
	}
	if err := startBackgroundDev(ctx, cfg, port, stderr); err != nil {
		return nil, err
	}
	tr, err := startTracing(ctx, cfg, stderr)
	if err != nil {
		return nil, err
	}
	c, err := dial(ctx, t, t.Address, stderr, tr.ClientInterceptors()...)
	if err != nil {
		tr.Stop()
		return nil, err
	}
	return &backend{client: c, background: true, tracing: tr}, nil
}

// warnNoWorker tells the user when nobody polls the task queue: the turn
// would wait silently.
func warnNoWorker(ctx context.Context, b *backend, cfg *config.Config, stderr io.Writer) {
	resp, err := b.client.WorkflowService().DescribeTaskQueue(ctx, &workflowservice.DescribeTaskQueueRequest{
		Namespace:     cfg.Temporal.Namespace,
		TaskQueue:     &taskqueuepb.TaskQueue{Name: cfg.Temporal.TaskQueue, Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
		TaskQueueType: enumspb.TASK_QUEUE_TYPE_WORKFLOW,
	})
	if err == nil && len(resp.GetPollers()) == 0 {
		fmt.Fprintf(stderr, "interpreter: warning: no worker is polling task queue %q at %s; the turn will wait until one starts (`interpreter worker` or `interpreter dev`)\n",
			cfg.Temporal.TaskQueue, cfg.Temporal.Address)
	}
}

// hasSearchAttributes tells whether the namespace has the thread search
// attributes registered (the embedded server does it; a cluster admin can).
func hasSearchAttributes(ctx context.Context, b *backend, namespace string) bool {
	resp, err := b.client.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return false
	}
	for name := range workflows.SearchAttributeTypes() {
		if _, ok := resp.GetCustomAttributes()[name]; !ok {
			return false
		}
	}
	return true
}
