// Package worker builds the Temporal workers of this product: the shared
// queue (thread and turn workflows, model calls) and a workspace host's own
// queue (shell commands, patches and file tools, which must run where the
// files are).
package worker

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/workflows"
)

// DefaultTaskQueue is the shared queue.
const DefaultTaskQueue = "interpreter"

// DefaultLiveThrottle is how often, at most, a worker sends a running
// command's or model call's heartbeat (and so its new output) to the
// server.
const DefaultLiveThrottle = 200 * time.Millisecond

// Options configure the workers of one process.
type Options struct {
	TaskQueue string
	// HostQueue is this workspace host's tool queue.
	HostQueue  string
	Activities *activities.Activities
	// Identity names this worker in the UI.
	Identity string
	// ToolsOnly makes a workspace-only worker: it polls only HostQueue
	// (tools), leaving workflows and model calls to the shared workers.
	ToolsOnly bool
	// LiveThrottle is the most time between a running command's or model
	// call's progress heartbeat and the server (front ends read live output
	// from there);
	// default [DefaultLiveThrottle]. The SDK's own would be 0.8 × the
	// heartbeat timeout (4 s).
	LiveThrottle time.Duration
	// Tracing adds spans for model calls and tool runs; the client must
	// carry Tracing.ClientInterceptors. Nil: no tracing.
	Tracing *Tracing
	// Namespace is the client's namespace (default "default").
	Namespace string
	// Versioning, when set, puts the shared queue's worker into a Worker
	// Deployment (rolling upgrades); nil: an unversioned worker.
	Versioning *Versioning
	// Reclaimed, when set, hears how a starting worker's [Reclaim] of a
	// dead process's activities went (and an [Unstick] that failed);
	// without it, neither runs.
	Reclaimed func(n int, err error)
	// AutomationTurns starts the turns of automations' prompt runs (the
	// process's front-end code, over its client); nil: such runs fail.
	AutomationTurns workflows.AutomationTurns
}

// WorkflowTaskPollers is how many workflow-task polls a worker keeps open
// on the shared queue and its sticky queue together (the SDK's default is
// 2). With two, a busy worker's polls go mostly to its sticky queue, where
// its running turns' tasks wait, and a new turn's first task waits on the
// shared queue behind them; the concurrency benchmark
// (dev/devtest/concurrency.sh) measured 50 threads started at once with 2
// and 8: time to a turn's first workflow task p95 17–20 s against 6–8 s,
// and 2.1–2.5 against 3.1–3.3 turns/s.
const WorkflowTaskPollers = 8

// HandoffPollers is how many polls a worker keeps open on its own queue
// of handed-off model calls (the SDK's default is 2). Calls are handed off
// in bursts (every call slower than the budget, of every turn the worker
// runs), and one not taken within the turn's pickup bound (2 s) is made
// afresh elsewhere while its stream is dropped: the concurrency benchmark
// with a 1 s model (every call handed off, 50 threads, load 8–10) made 35
// of 250 calls twice with 2 pollers, 1–7 with 8.
const HandoffPollers = 8

// StickyScheduleToStartTimeout is how long a workflow task waits on the
// sticky queue of the worker that ran the workflow before it goes to the
// shared queue (the SDK's default is 5 s). A SIGKILLed worker's sticky
// queue is polled by no one, so this is what each of its workflows' next
// task waits; a live worker picks its sticky tasks up within milliseconds,
// and one too busy to do so within this bound loses only its cached copy
// (the task replays elsewhere).
const StickyScheduleToStartTimeout = time.Second

// Workers are the running workers of one process.
type Workers struct {
	shared   worker.Worker // nil for a tools-only worker
	host     worker.Worker
	sessions worker.Worker // this process's unified-exec sessions
	calls    worker.Worker // this process's handed-off model calls; nil for a tools-only worker
	acts     *activities.Activities
	// stopPeers ends the watch of this host's other worker processes.
	stopPeers func()
	// Current tells whether this worker's build is its deployment's
	// current version (new turns start on it); PromoteErr why it could
	// not be made so.
	Current    bool
	PromoteErr error
}

// Start registers everything and starts polling both queues.
func Start(c client.Client, o Options) (*Workers, error) {
	if o.TaskQueue == "" {
		o.TaskQueue = DefaultTaskQueue
	}
	if o.HostQueue == "" {
		return nil, fmt.Errorf("worker: a host queue is required")
	}
	base := worker.Options{Identity: o.Identity, Interceptors: o.Tracing.WorkerInterceptors(o.HostQueue),
		MaxHeartbeatThrottleInterval: o.LiveThrottle, StickyScheduleToStartTimeout: StickyScheduleToStartTimeout}
	if base.MaxHeartbeatThrottleInterval <= 0 {
		base.MaxHeartbeatThrottleInterval = DefaultLiveThrottle
	}
	o.Activities.HostQueue = o.HostQueue
	if o.Activities.Pollers == nil {
		o.Activities.Pollers = pollers(c, namespaceOr(o.Namespace))
	}
	if o.Activities.Failover == nil {
		o.Activities.Failover = failover{c: c, namespace: namespaceOr(o.Namespace), identity: o.Identity}
	}
	if o.Reclaimed != nil && !o.ToolsOnly {
		unstickFirst(c, o)
	}
	if o.Activities.CommandWorker == nil {
		o.Activities.CommandWorker = commandWorker(c)
	}
	if o.Activities.Wake == nil {
		o.Activities.Wake = wakeFollowers(c)
	}
	// Sessions this process holds are reached on a queue only it polls
	// (see workflows: unified exec); set before the host worker polls.
	// Stops of its commands go there too: the host worker's identity
	// names it, so a stop that reached another worker of the host can be
	// sent on (activities: stopqueue.go).
	o.Activities.SessionQueue = sessionQueue(o.HostQueue)
	hostOpts := base
	hostOpts.DisableWorkflowWorker = true
	hostOpts.Identity = o.Identity + activities.StopQueueTag + o.Activities.SessionQueue
	host := worker.New(c, o.HostQueue, hostOpts)
	host.RegisterActivity(o.Activities.Exec)
	host.RegisterActivity(o.Activities.StopCommand)
	host.RegisterActivity(o.Activities.ApplyPatch)
	host.RegisterActivity(o.Activities.FileTool)
	host.RegisterActivity(o.Activities.DiscoverSkills)
	host.RegisterActivity(o.Activities.LoadImages)
	host.RegisterActivity(o.Activities.NotifyApproval)
	host.RegisterActivity(o.Activities.MCPListTools)
	host.RegisterActivity(o.Activities.MCPCallTool)
	host.RegisterActivity(o.Activities.ExecCommand)
	host.RegisterActivity(o.Activities.RunCommandJob)
	sessOpts := base
	sessOpts.DisableWorkflowWorker = true
	// Named as the host worker is: a handed-off command's pending Exec
	// runs here, and a stop that reached another worker of the host
	// finds this process's queue from it.
	sessOpts.Identity = hostOpts.Identity
	sessions := worker.New(c, o.Activities.SessionQueue, sessOpts)
	sessions.RegisterActivity(o.Activities.WriteStdin)
	sessions.RegisterActivity(o.Activities.CloseSessions)
	sessions.RegisterActivity(o.Activities.WatchSession)
	sessions.RegisterActivity(o.Activities.StopCommand)
	// Commands a local activity handed off are waited for here.
	sessions.RegisterActivity(o.Activities.Exec)
	sessions.RegisterActivity(o.Activities.ResumeExecCommand)
	if err := sessions.Start(); err != nil {
		return nil, fmt.Errorf("starting worker on %s: %w", o.Activities.SessionQueue, err)
	}
	if err := host.Start(); err != nil {
		sessions.Stop()
		return nil, fmt.Errorf("starting worker on %s: %w", o.HostQueue, err)
	}
	w := &Workers{host: host, sessions: sessions, acts: o.Activities}
	if o.Reclaimed != nil {
		go reclaimInBackground(c, o)
		ctx, stop := context.WithCancel(context.Background())
		w.stopPeers = stop
		if err := watchPeers(ctx, o.Activities.Home, reclaimPeers(c, o)); err != nil {
			o.Reclaimed(0, err) // no quick notice of a dead peer; heartbeats still find it
		}
	}
	if o.ToolsOnly {
		return w, nil
	}
	// Model calls that outrun their time in a workflow task go on in this
	// process: the activity that takes one over must come here.
	o.Activities.HandoffQueue = handoffQueue(o.TaskQueue)
	callsOpts := base
	callsOpts.DisableWorkflowWorker = true
	callsOpts.MaxConcurrentActivityTaskPollers = HandoffPollers
	w.calls = worker.New(c, o.Activities.HandoffQueue, callsOpts)
	w.calls.RegisterActivity(o.Activities.CallModel)
	if err := w.calls.Start(); err != nil {
		host.Stop()
		return nil, fmt.Errorf("starting worker on %s: %w", o.Activities.HandoffQueue, err)
	}
	sharedOpts := base
	sharedOpts.MaxConcurrentWorkflowTaskPollers = WorkflowTaskPollers
	// A workflow this build cannot run (a history it cannot replay, or a
	// panic) fails at once, its failure naming the cause and the log
	// naming the workflow, instead of retrying its task forever: a thread
	// or turn of another build then fails cleanly rather than hanging.
	sharedOpts.WorkflowPanicPolicy = worker.FailWorkflow
	turnOpts := workflow.RegisterOptions{Name: "TurnWorkflow"}
	if v := o.Versioning; v != nil {
		if v.Deployment == "" {
			v.Deployment = DefaultDeployment
		}
		if v.BuildID == "" {
			v.BuildID = DefaultBuildID()
		}
		sharedOpts.DeploymentOptions = v.options()
		// A turn's whole run stays on the build that began it.
		turnOpts.VersioningBehavior = workflow.VersioningBehaviorPinned
	}
	w.shared = worker.New(c, o.TaskQueue, sharedOpts)
	w.shared.RegisterWorkflowWithOptions(workflows.ThreadWorkflow, workflow.RegisterOptions{Name: "ThreadWorkflow"})
	w.shared.RegisterWorkflowWithOptions(workflows.TurnWorkflow, turnOpts)
	w.shared.RegisterWorkflowWithOptions(workflows.MemoryConsolidationWorkflow, workflow.RegisterOptions{Name: "MemoryConsolidationWorkflow"})
	w.shared.RegisterWorkflowWithOptions(workflows.ScheduledMemoryWorkflow, workflow.RegisterOptions{Name: "ScheduledMemoryWorkflow"})
	w.shared.RegisterWorkflowWithOptions(workflows.AutomationWorkflow, workflow.RegisterOptions{Name: "AutomationWorkflow"})
	w.shared.RegisterActivity(&workflows.AutomationActivities{Turns: o.AutomationTurns})
	w.shared.RegisterActivity(o.Activities.CallModel)
	w.shared.RegisterActivity(o.Activities.HostPollers)
	// Also run in-process, as a local activity, when a turn's workspace
	// host is this worker (see workflows: skills).
	w.shared.RegisterActivity(o.Activities.DiscoverSkills)
	// Shell commands run in-process first, as local activities, when a
	// turn's workspace host is this worker (see workflows: localexec).
	w.shared.RegisterActivity(o.Activities.ExecHere)
	w.shared.RegisterActivity(o.Activities.ExecCommandHere)
	w.shared.RegisterActivity(o.Activities.ForgetCommands)
	w.shared.RegisterActivity(o.Activities.Compact)
	w.shared.RegisterActivity(o.Activities.ForkTranscript)
	w.shared.RegisterActivity(o.Activities.ExtractMemory)
	w.shared.RegisterActivity(o.Activities.LoadMemory)
	w.shared.RegisterActivity(o.Activities.ConsolidateMemories)
	if err := w.shared.Start(); err != nil {
		host.Stop()
		w.calls.Stop()
		return nil, fmt.Errorf("starting worker on %s: %w", o.TaskQueue, err)
	}
	if o.Versioning != nil {
		w.Current, w.PromoteErr = Promote(context.Background(), c, *o.Versioning)
	}
	return w, nil
}

// Stop stops polling and waits for running activities to return.
func (w *Workers) Stop() {
	if w.stopPeers != nil {
		w.stopPeers()
	}
	w.host.Stop()
	w.sessions.Stop()
	w.acts.CloseAllSessions() // a session's processes end with its worker
	if w.shared != nil {
		w.shared.Stop()
		w.calls.Stop()
	}
	w.acts.CloseMCP() // stdio MCP servers' processes end with the worker
}

// handoffQueue names a task queue that only this process polls.
func handoffQueue(shared string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-calls-%s-%d-%s", shared, host, os.Getpid(), strconv.FormatInt(time.Now().UnixNano()%(1<<32), 36))
}

// unstickBudget bounds how long a starting worker spends on [Unstick]
// before it polls; workflows it does not reach wait out the sticky
// timeout instead.
const unstickBudget = time.Second

// unstickFirst runs [Unstick] once, before the worker polls.
func unstickFirst(c client.Client, o Options) {
	ns := o.Namespace
	if ns == "" {
		ns = "default"
	}
	ctx, cancel := context.WithTimeout(context.Background(), unstickBudget)
	defer cancel()
	if err := Unstick(ctx, c, ns); err != nil && ctx.Err() == nil {
		o.Reclaimed(0, err)
	}
}

func namespaceOr(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// sessionQueue names the queue of this process's unified-exec sessions.
func sessionQueue(hostQueue string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-sessions-%s-%d-%s", hostQueue, host, os.Getpid(), strconv.FormatInt(time.Now().UnixNano()%(1<<32), 36))
}

// reclaimInBackground runs [Reclaim] once, as the worker starts polling.
func reclaimInBackground(c client.Client, o Options) {
	ns := o.Namespace
	if ns == "" {
		ns = "default"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Reclaim(ctx, c, ns, o.Identity)
	o.Reclaimed(n, err)
	// Records of started commands that ended turns could not forget.
	_, _ = o.Activities.SweepStartedRecords(ctx, func(ctx context.Context, turnID string) bool {
		return turnEnded(ctx, c, turnID)
	})
}
