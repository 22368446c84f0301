package devtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/grpc"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// rpcCounter counts the gRPC calls a client makes, by method.
type rpcCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *rpcCounter) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	r.mu.Lock()
	r.n[method[strings.LastIndex(method, "/")+1:]]++
	r.mu.Unlock()
	return invoker(ctx, method, req, reply, cc, opts...)
}

func (r *rpcCounter) snapshot() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.n {
		out[k] = v
	}
	return out
}

// dialCounting opens a client to the world's server whose calls counter
// counts.
func dialCounting(w *World, counter *rpcCounter) client.Client {
	w.TB.Helper()
	counter.n = map[string]int{}
	c, err := client.Dial(client.Options{
		HostPort: w.Address,
		Logger:   sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		ConnectionOptions: client.ConnectionOptions{GrpcCompression: &client.GrpcCompressionNone{},
			DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(counter.intercept)}},
	})
	if err != nil {
		w.TB.Fatal(err)
	}
	w.TB.Cleanup(c.Close)
	return c
}

// follow follows a turn as the app-server and MCP front ends do, through
// its stream ([threads.Stream]): its event log through the history long
// poll, its live output polled at their tick (100 ms) and paced by
// [threads.LivePace]. It sends the turn's result (or why there is none).
func follow(ctx context.Context, c client.Client, turnID string, ended chan<- error) {
	s := threads.NewStream(c, turnID, 0, threads.StreamOptions{Live: true, Begun: true, Retries: 3})
	for u := range s.Updates(ctx) {
		if u.Kind != threads.UpdateEnd {
			continue
		}
		switch {
		case u.Err != nil:
			ended <- fmt.Errorf("following %s: %w", turnID, u.Err)
		case u.Result.Status != workflows.StatusCompleted:
			ended <- fmt.Errorf("turn %s: %s %s", turnID, u.Result.Status, u.Result.Error)
		default:
			ended <- nil
		}
	}
}

// idleTurns is how many turns of each kind (followed, unfollowed)
// TestIdleOpenTurnsCostLittle parks (IDLE_TURNS overrides).
func idleTurns(t *testing.T) int {
	if s := os.Getenv("IDLE_TURNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("IDLE_TURNS=%q", s)
		}
		return n
	}
	return 20
}

// idleWindow is how long TestIdleOpenTurnsCostLittle counts calls
// (IDLE_WINDOW overrides, in seconds): the calls of a quiet turn come
// half a minute (its follower's long poll) to minutes (its heartbeat)
// apart, so a shorter window would count one call more or less per turn,
// which is a good part of the bound.
func idleWindow(t *testing.T) time.Duration {
	if s := os.Getenv("IDLE_WINDOW"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("IDLE_WINDOW=%q", s)
		}
		return time.Duration(n) * time.Second
	}
	return 150 * time.Second
}

// idleBound is the most calls a second an idle open turn may cost.
const idleBound = 0.05

// Open turns whose commands print nothing cost the server close to
// nothing, followed or not: the test parks N turns followed as the front
// ends follow them and N unfollowed, each in a silent `sleep` (and, in the
// same window, N of each kind of quiet wait, followed: an MCP call, a
// unified-exec poll, an approval; and N threads watching a background
// terminal: see [idleTool]), counts the
// gRPC calls the worker's client and the followers' client make over a
// window of the sleep, and logs them per turn and second by method (and
// the whole process's CPU, server included). The worker's calls are the
// same for both kinds, so they are counted per turn of either; a
// followed turn costs those and its follower's. Polls of the worker's
// own task queues are per worker, not per turn, and are logged apart.
// The calls are counted, not timed, so the bound holds on a loaded
// machine too. When the commands end, they print: that wakes the
// followers, which see the turns end.
func TestIdleOpenTurnsCostLittle(t *testing.T) {
	window := idleWindow(t)
	const settle = 15 * time.Second
	n := idleTurns(t)
	// Long enough that no command ends before the window does, however
	// long starting the turns took.
	sleep := settle + window + 20*time.Second + time.Duration(6*n)*400*time.Millisecond
	tools := idleTools(t, sleep)
	script := &fakemodel.Script{Turns: []fakemodel.Turn{{Match: "IDLE-CMD", Steps: []fakemodel.Step{
		{Shell: fmt.Sprintf("sleep %d; echo woke", int(sleep.Seconds()))}, {Text: "done"},
	}}}}
	for _, k := range tools {
		script.Turns = append(script.Turns, k.turn())
	}
	w := Start(t, script)
	var workerRPCs, followerRPCs rpcCounter
	w.StartWorker(WorkerOptions{Name: "idle", Client: dialCounting(w, &workerRPCs)})
	fc := dialCounting(w, &followerRPCs)
	ctx, cancel := context.WithTimeout(context.Background(), sleep+3*time.Minute)
	defer cancel()
	var turns []string
	ended := make(chan error, n)
	for _, followed := range []bool{false, true} {
		for i := range n {
			id := fmt.Sprintf("idle-%t-%d", followed, i)
			resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
				workflows.StartTurnRequest{Prompt: "IDLE-CMD wait"})
			if err != nil {
				t.Fatal(err)
			}
			turns = append(turns, resp.TurnID)
			if followed {
				go follow(ctx, fc, resp.TurnID, ended)
			}
		}
	}
	awaitCommandsRunning(ctx, t, w, turns)
	// One kind at a time: a watch not taken within its pickup bound (5 s)
	// on a machine busy starting a hundred turns is reported lost.
	for _, k := range tools {
		k.start(ctx, t, w, n)
		k.awaitParked(ctx, t, w)
	}
	// The measurement starts once every command has run for a while: a
	// follower looks closely for 3 s after each event of the turn, then
	// backs off until the command has been quiet long enough that it
	// would wake the follower should it print (threads.LivePace); this
	// measures the quiet that follows.
	time.Sleep(settle)
	wb, fb, cpu0 := workerRPCs.snapshot(), followerRPCs.snapshot(), cpuTime()
	for _, k := range tools {
		k.mark()
	}
	time.Sleep(window) // a measurement over a fixed window of the sleep
	wa, fa, cpu1 := workerRPCs.snapshot(), followerRPCs.snapshot(), cpuTime()
	for _, k := range tools {
		k.measure(t, n, window)
	}
	perTurn, byMethod, perWorker := rates(wb, wa, 2*n, window)
	fPerTurn, fByMethod, _ := rates(fb, fa, n, window)
	t.Logf("%d turns followed and %d not, over %v: worker %.4f RPC/s per turn %v (its own polls and worker heartbeats %.2f/s); followers %.4f RPC/s per followed turn %v; process CPU %.1f%% of a core",
		n, n, window, perTurn, byMethod, perWorker, fPerTurn, fByMethod, 100*float64(cpu1-cpu0)/float64(window))
	t.Logf("an idle open turn: %.4f RPC/s unfollowed, %.4f followed", perTurn, perTurn+fPerTurn)
	if perTurn > idleBound || perTurn+fPerTurn > idleBound {
		t.Errorf("an idle open turn costs %.4f RPC/s unfollowed, %.4f followed (worker %.4f, follower %.4f), want at most %.2f",
			perTurn, perTurn+fPerTurn, perTurn, fPerTurn, idleBound)
	}
	for i, turn := range turns {
		if res := w.WaitTurn(ctx, fmt.Sprint(i), turn); res.Status != workflows.StatusCompleted {
			t.Fatalf("turn %s: %s %s", turn, res.Status, res.Error)
		}
	}
	for range n {
		if err := <-ended; err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range tools {
		k.finish(ctx, t, w)
	}
}

// awaitCommandsRunning waits until each turn's command item has started.
func awaitCommandsRunning(ctx context.Context, t *testing.T, w *World, turns []string) {
	t.Helper()
	for _, turn := range turns {
		for {
			started := false
			var page workflows.EventsPage
			v, err := w.Client.QueryWorkflow(ctx, turn, "", workflows.QueryEvents, workflows.EventsRequest{})
			if err == nil && v.Get(&page) == nil {
				for _, e := range page.Events {
					started = started || e.Type == workflows.EventItemStarted && e.Item.Type == workflows.ItemCommandExecution
				}
			}
			if started {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the command of %s did not start", turn)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// rates are the calls between two snapshots per turn and second (all but
// task-queue polls and the SDK's worker heartbeats, which are per worker),
// those by method, and the per-worker calls per second.
func rates(before, after map[string]int, turns int, d time.Duration) (perTurn float64, byMethod string, polls float64) {
	var names []string
	total := 0
	for m, v := range after {
		k := v - before[m]
		if k == 0 {
			continue
		}
		if strings.HasPrefix(m, "Poll") || m == "RecordWorkerHeartbeat" {
			polls += float64(k) / d.Seconds()
			continue
		}
		total += k
		names = append(names, fmt.Sprintf("%s %.3f", m, float64(k)/float64(turns)/d.Seconds()))
	}
	sort.Strings(names)
	return float64(total) / float64(turns) / d.Seconds(), "[" + strings.Join(names, ", ") + "]", polls
}

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// An interrupt stops a command that prints nothing at once, although its
// heartbeats, which would carry Temporal's cancellation, are seconds
// apart: the worker holding it is told directly (StopCommand). The item
// still reports how long the command ran, and its processes are gone.
func TestInterruptStopsAQuietCommandAtOnce(t *testing.T) {
	const sleepArg = "59.4321" // how the test finds the command's process
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "exec sleep " + sleepArg}, {Text: "never read"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "quiet"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := "quiet-interrupt"
	resp, err := threads.Start(ctx, w.Client, threads.NewThread{ThreadID: id, TaskQueue: TaskQueue, Config: w.Config("")},
		workflows.StartTurnRequest{Prompt: "wait"})
	if err != nil {
		t.Fatal(err)
	}
	awaitCommandsRunning(ctx, t, w, []string{resp.TurnID})
	for len(processesWithArg(sleepArg)) == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the command did not start")
		case <-time.After(20 * time.Millisecond):
		}
	}
	// Past the first heartbeat: the next keep-alive is minutes away.
	time.Sleep(1500 * time.Millisecond)
	start := time.Now()
	if err := threads.Interrupt(ctx, w.Client, id); err != nil {
		t.Fatal(err)
	}
	res := w.WaitTurn(ctx, id, resp.TurnID)
	took := time.Since(start)
	if res.Status != workflows.StatusInterrupted {
		t.Fatalf("turn %s (%s), want interrupted", res.Status, res.Error)
	}
	var item *workflows.Item
	for _, e := range readAll(t, w, resp.TurnID).Events {
		if e.Type == workflows.EventItemCompleted && e.Item.Type == workflows.ItemCommandExecution {
			item = e.Item
		}
	}
	if item == nil || item.Status != workflows.StatusInterrupted || item.DurationMs < 1500 {
		t.Fatalf("command item %+v, want interrupted after at least 1.5 s", item)
	}
	if pids := processesWithArg(sleepArg); len(pids) > 0 {
		t.Fatalf("the command's processes %v still run", pids)
	}
	t.Logf("interrupt to the turn's end: %v", took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Fatalf("the turn ended %v after the interrupt: the command waited for a heartbeat", took)
	}
}

// processesWithArg are the processes one of whose arguments is arg.
func processesWithArg(arg string) []string {
	var pids []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && slices.Contains(strings.Split(string(b), "\x00"), arg) {
			pids = append(pids, d.Name())
		}
	}
	return pids
}
