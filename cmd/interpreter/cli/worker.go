package cli

import (
	"context"
	"fmt"

	"github.com/interpreter-dev/interpreter/worker"
)

// ClusterFlags say how to reach a Temporal server (config: [temporal]).
type ClusterFlags struct {
	TemporalAddress string `name:"temporal-address" env:"TEMPORAL_ADDRESS" help:"Temporal frontend host:port (default from config: 127.0.0.1:7233)." placeholder:"HOST:PORT"`
	Namespace       string `env:"TEMPORAL_NAMESPACE" help:"Temporal namespace."`
	TLS             bool   `name:"tls" help:"Use TLS."`
	TLSCert         string `name:"tls-cert" help:"Client certificate (mTLS)." placeholder:"FILE"`
	TLSKey          string `name:"tls-key" help:"Client key (mTLS)." placeholder:"FILE"`
	TLSCA           string `name:"tls-ca" help:"CA bundle." placeholder:"FILE"`
	APIKeyEnv       string `name:"api-key-env" help:"Environment variable holding a Temporal Cloud API key." placeholder:"VAR"`
}

func (f *ClusterFlags) overrides() []string {
	var o []string
	add := func(k, v string) {
		if v != "" {
			o = append(o, fmt.Sprintf("temporal.%s=%q", k, v))
		}
	}
	add("address", f.TemporalAddress)
	add("namespace", f.Namespace)
	add("tls_cert", f.TLSCert)
	add("tls_key", f.TLSKey)
	add("tls_ca", f.TLSCA)
	add("api_key_env", f.APIKeyEnv)
	if f.TLS {
		o = append(o, "temporal.tls=true")
	}
	return o
}

// WorkerCmd runs a worker against any Temporal server.
type WorkerCmd struct {
	ClusterFlags `embed:""`
	TaskQueue    string `name:"task-queue" help:"Shared task queue (workflows and model calls)."`
	HostQueue    string `name:"host-queue" help:"This workspace host's tool task queue (default: <task-queue>-host-<hostname>)."`
	ToolsOnly    bool   `name:"tools-only" help:"Only run this host's tools (shell, patches); leave workflows and model calls to other workers."`
	BuildID      string `name:"build-id" env:"INTERPRETER_BUILD_ID" help:"This build's id in the Worker Deployment (default: the binary's VCS revision, else a hash of it)."`
	Deployment   string `help:"The Worker Deployment's name (default: interpreter)."`
	Promote      bool   `help:"Make this build the deployment's current version: new turns start on it (see docs/cluster.md, Versions and upgrades)."`
	Unversioned  bool   `help:"Poll without worker versioning (all workers of the queue must then run one build)."`
}

func (w *WorkerCmd) overrides() []string {
	o := w.ClusterFlags.overrides()
	if w.TaskQueue != "" {
		o = append(o, fmt.Sprintf("temporal.task_queue=%q", w.TaskQueue))
	}
	if w.HostQueue != "" {
		o = append(o, fmt.Sprintf("temporal.host_queue=%q", w.HostQueue))
	}
	return o
}

// Run polls until SIGINT/SIGTERM.
func (w *WorkerCmd) Run(ctx context.Context, g *Globals, io Stdio) error {
	cfg, err := g.load(w.overrides())
	if err != nil {
		return err
	}
	tr, err := startTracing(ctx, cfg, io.Err)
	if err != nil {
		return err
	}
	c, err := dial(ctx, cfg.Temporal, cfg.Temporal.Address, io.Err, tr.ClientInterceptors()...)
	if err != nil {
		tr.Stop()
		return exitf(1, "%v", err)
	}
	b := &backend{client: c, tracing: tr}
	defer b.Close()
	if !w.ToolsOnly {
		// Once per namespace in effect: later starts find them there.
		res := worker.EnsureSearchAttributes(ctx, c, cfg.Temporal.Namespace)
		if msg := res.Describe(cfg.Temporal.Address, cfg.Temporal.Namespace); msg != "" {
			fmt.Fprint(io.Err, "interpreter: "+msg)
		}
	}
	var v *worker.Versioning
	if !w.Unversioned && !w.ToolsOnly {
		v = &worker.Versioning{Deployment: w.Deployment, BuildID: w.BuildID, Promote: w.Promote}
	}
	if err := b.startWorker(cfg, "worker", w.ToolsOnly, v); err != nil {
		return err
	}
	if v != nil {
		switch ws := b.workers; {
		case ws.PromoteErr != nil:
			fmt.Fprintf(io.Err, "interpreter: warning: %v\n", ws.PromoteErr)
		case ws.Current:
			fmt.Fprintf(io.Out, "Build %s is the current version of deployment %s: new turns start on it\n", v.BuildID, v.Deployment)
		default:
			fmt.Fprintf(io.Out, "Build %s joined deployment %s (not current: it runs the turns pinned to it; --promote makes it current)\n", v.BuildID, v.Deployment)
		}
	}
	fmt.Fprintf(io.Out, "Worker connected to %s (namespace %s): task queue %s, host queue %s\n",
		cfg.Temporal.Address, cfg.Temporal.Namespace, cfg.Temporal.TaskQueue, cfg.Temporal.HostQueue)
	fmt.Fprintf(io.Out, "Traces: %s\n", tracingNote(tr))
	<-ctx.Done()
	return nil
}
