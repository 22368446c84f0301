package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// temporalCLI finds the official Temporal CLI: $INTERPRETER_TEMPORAL_CLI,
// then $GOBIN / $HOME/go/bin, then PATH. .ci/run installs it.
func temporalCLI(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("INTERPRETER_TEMPORAL_CLI"); p != "" {
		return p
	}
	for _, dir := range []string{os.Getenv("GOBIN"), filepath.Join(os.Getenv("HOME"), "go", "bin")} {
		if p := filepath.Join(dir, "temporal"); dir != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	t.Fatal("the Temporal CLI is not installed: go install github.com/temporalio/cli/cmd/temporal@v1.5.1 (or set INTERPRETER_TEMPORAL_CLI)")
	return ""
}

// cluster is the CLI's dev server as a process of its own, with workers,
// SeaweedFS as the transcript store and front ends as further processes,
// each with its own INTERPRETER_HOME (no shared disk).
type cluster struct {
	*env
	c     client.Client
	weed  *weed
	store string // the bucket's [store] url
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newCluster(t *testing.T, script *fakemodel.Script) *cluster {
	t.Helper()
	e := newEnv(t, script)
	srv := exec.Command(temporalCLI(t), "server", "start-dev", "--headless",
		"--port", fmt.Sprint(e.Port), "--ui-port", fmt.Sprint(freePort(t)), "--http-port", fmt.Sprint(freePort(t)),
		"--metrics-port", fmt.Sprint(freePort(t)), "--db-filename", filepath.Join(t.TempDir(), "temporal.db"),
		"--log-level", "error")
	srv.Stdout, srv.Stderr = os.Stderr, os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	var c client.Client
	e2etest.WaitUntil(t, func() bool {
		var err error
		c, err = client.Dial(client.Options{HostPort: fmt.Sprintf("127.0.0.1:%d", e.Port), Logger: e2etest.QuietLogger{}})
		if err != nil {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
			c.Close()
			return false
		}
		return true
	}, 90*time.Second, "the Temporal CLI's server", func() string { return "" })
	t.Cleanup(c.Close)
	k := &cluster{env: e, c: c}
	// The transcript store: a bucket on a real S3-compatible server, the
	// processes' credentials from the AWS SDK's environment variables.
	for _, kv := range s3Env(s3Secret) {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	k.weed = startWeed(t)
	k.store = k.weed.url()
	return k
}

// in runs the binary with its own home.
func (k *cluster) in(home string, args ...string) *e2etest.Proc {
	k.T.Helper()
	return k.inEnv(home, nil, args...)
}

// inEnv is in with more environment variables (later ones win).
func (k *cluster) inEnv(home string, environ []string, args ...string) *e2etest.Proc {
	k.T.Helper()
	p := &e2etest.Proc{T: k.T, Cmd: exec.Command(e2etest.Binary, args...), Stdout: &e2etest.SyncBuffer{}, Stderr: &e2etest.SyncBuffer{}, Done: make(chan struct{})}
	p.Cmd.Dir = k.Work
	p.Cmd.Env = append(append(os.Environ(), "INTERPRETER_HOME="+home, "OPENAI_API_KEY=", "INTERPRETER_BUILD_ID="), environ...)
	p.Cmd.Stdout, p.Cmd.Stderr = p.Stdout, p.Stderr
	p.Cmd.Stdin = strings.NewReader("")
	if err := p.Cmd.Start(); err != nil {
		k.T.Fatal(err)
	}
	go func() { p.Err = p.Cmd.Wait(); close(p.Done) }()
	k.T.Cleanup(func() { p.Kill() })
	return p
}

func (k *cluster) config() []string {
	return append(k.env.Config(), "-c", "temporal.embedded=false", "-c", "store.url="+k.store)
}

// worker starts a worker of one host and build, with a home of its own.
func (k *cluster) worker(host, build string, extra ...string) *e2etest.Proc {
	k.T.Helper()
	args := append([]string{"worker", "--host-queue", host, "--build-id", build}, k.config()...)
	p := k.in(k.T.TempDir(), append(args, extra...)...)
	p.WaitFor(func() bool { return strings.Contains(p.Stdout.String(), "Worker connected") }, 60*time.Second, "worker "+host+"/"+build)
	return p
}

// exec runs `exec` on a host (its own home too).
func (k *cluster) exec(host string, args ...string) *e2etest.Proc {
	all := append([]string{"exec"}, k.config()...)
	all = append(all, "-c", "temporal.host_queue="+host, "-c", "approval_policy=never")
	return k.in(k.T.TempDir(), append(all, args...)...)
}

func (k *cluster) versioning(t *testing.T, workflowID string) (enumspb.VersioningBehavior, string) {
	t.Helper()
	d, err := k.c.DescribeWorkflowExecution(context.Background(), workflowID, "")
	if err != nil {
		t.Fatal(err)
	}
	vi := d.GetWorkflowExecutionInfo().GetVersioningInfo()
	return vi.GetBehavior(), vi.GetDeploymentVersion().GetBuildId()
}

// The cluster suite, against the official CLI's server run as its own
// process: search-attribute setup, two hosts with stores of their own, a
// host without a worker, a rolling upgrade, and a host's worker killed.
func TestClusterCLIServer(t *testing.T) {
	k := newCluster(t, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "host a cell", Steps: []fakemodel.Step{{Shell: "echo host-a-ran > a.txt"}, {Text: "a done"}}},
		{Match: "slow old cell", Steps: []fakemodel.Step{{Shell: "sleep 3; echo slept"}, {Text: "old done"}}},
		{Match: "new build cell", Steps: []fakemodel.Step{{Text: "new done"}}},
		{Match: "missing host cell", Steps: []fakemodel.Step{{Shell: "echo never > z.txt"}, {Text: "z done"}}},
		{Match: "kill cell", Steps: []fakemodel.Step{{Shell: "touch started-b.txt; sleep 60"}, {Shell: "echo again > again.txt"}, {Text: "kill done"}}},
	}})

	// Setup: the CLI's server has none of our search attributes.
	list := k.in(t.TempDir(), append([]string{"threads", "list"}, k.config()...)...)
	if code := list.Wait(60 * time.Second); code != 0 || !strings.Contains(list.Stderr.String(), "lacks the thread search attributes") {
		t.Fatalf("threads list before setup: exit %d\n%s", code, list.Stderr)
	}
	setup := k.in(t.TempDir(), append([]string{"setup"}, k.config()...)...)
	if code := setup.Wait(60 * time.Second); code != 0 || !strings.Contains(setup.Stdout.String(), "registered search attributes") {
		t.Fatalf("setup: exit %d\n%s%s", code, setup.Stdout, setup.Stderr)
	}
	again := k.in(t.TempDir(), append([]string{"setup"}, k.config()...)...)
	if code := again.Wait(60 * time.Second); code != 0 || !strings.Contains(again.Stdout.String(), "has the search attributes already") {
		t.Fatalf("setup again: exit %d\n%s%s", code, again.Stdout, again.Stderr)
	}

	// Two hosts, build b1; a's worker makes b1 current (the first build).
	wa := k.worker("host-a", "b1")
	if !strings.Contains(wa.Stdout.String(), "Build b1 is the current version") {
		t.Fatalf("worker a:\n%s%s", wa.Stdout, wa.Stderr)
	}
	wb := k.worker("host-b", "b1")
	run := k.exec("host-a", "--json", "host a cell")
	if code := run.Wait(90 * time.Second); code != 0 || !strings.Contains(run.Stdout.String(), "a done") {
		t.Fatalf("host a cell: exit %d\n%s%s", code, run.Stdout, run.Stderr)
	}

	// Rolling upgrade: a turn begun on b1, then b2 joins and is made
	// current; the old turn ends on b1, a new turn of the same thread runs
	// on b2, whose worker has an empty store of its own.
	old := k.exec("host-a", "--json", "slow old cell")
	old.WaitFor(func() bool { return strings.Contains(old.Stdout.String(), `"command_execution"`) }, 60*time.Second, "the old turn's command")
	thread := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, old.Stdout.String()))
	wc := k.worker("host-a", "b2", "--promote")
	if !strings.Contains(wc.Stdout.String(), "Build b2 is the current version") {
		t.Fatalf("worker c:\n%s%s", wc.Stdout, wc.Stderr)
	}
	if code := old.Wait(90 * time.Second); code != 0 || !strings.Contains(old.Stdout.String(), "old done") {
		t.Fatalf("old turn: exit %d\n%s%s", code, old.Stdout, old.Stderr)
	}
	next := k.exec("host-a", "--json", "resume", thread, "new build cell")
	if code := next.Wait(90 * time.Second); code != 0 || !strings.Contains(next.Stdout.String(), "new done") {
		t.Fatalf("new turn: exit %d\n%s%s", code, next.Stdout, next.Stderr)
	}
	if !k.Model.Server.LastRequestContains("slept") {
		t.Fatal("the new build's model call lacks the old turn's command output (the transcript did not reach its store)")
	}
	for turn, build := range map[string]string{thread + "/turn-1": "b1", thread + "/turn-2": "b2"} {
		if b, id := k.versioning(t, turn); b != enumspb.VERSIONING_BEHAVIOR_PINNED || id != build {
			t.Fatalf("%s: %s on %q, want pinned to %s", turn, b, id, build)
		}
	}

	// A host no worker serves: a warning within seconds, then a failed turn.
	begun := time.Now()
	miss := k.exec("hostZ", "-c", "temporal.host_wait=5s", "missing host cell")
	miss.WaitFor(func() bool { return strings.Contains(miss.Stderr.String(), "no worker serves host hostZ; waiting") }, 30*time.Second, "the warning")
	warned := time.Since(begun)
	if code := miss.Wait(60 * time.Second); code == 0 || !strings.Contains(miss.Stderr.String()+miss.Stdout.String(), "gave up after 5s") {
		t.Fatalf("missing host: exit %d\n%s%s", code, miss.Stdout, miss.Stderr)
	}
	t.Logf("missing host: warned after %s, failed after %s", warned.Round(time.Millisecond), time.Since(begun).Round(time.Millisecond))
	if _, err := os.Stat(filepath.Join(k.Work, "z.txt")); err == nil {
		t.Fatal("a command ran for the host without a worker")
	}

	// Host b's worker killed while its command runs: the command is
	// reported interrupted after its heartbeat timeout (20 s here, as a
	// cluster whose machines may vanish sets it), and the next one,
	// with no worker left for host b (the server still lists the dead one
	// for about a minute), fails the turn after host_wait instead of
	// waiting for the turn timeout.
	kill := k.exec("host-b", "-c", "temporal.host_wait=5s", "-c", "temporal.command_heartbeat=20s", "--json", "kill cell")
	e2etest.WaitUntil(t, func() bool {
		_, err := os.Stat(filepath.Join(k.Work, "started-b.txt"))
		return err == nil
	}, 60*time.Second, "the command on host b", func() string { return kill.Stdout.String() + kill.Stderr.String() })
	wb.Kill()
	killed := time.Now()
	code := kill.Wait(4 * time.Minute)
	failedAfter := time.Since(killed)
	out := kill.Stdout.String() + kill.Stderr.String()
	if code == 0 || !strings.Contains(out, "host host-b took the tool call: gave up after 5s") {
		t.Fatalf("killed host: exit %d\n%s", code, out)
	}
	if !strings.Contains(kill.Stdout.String(), "interrupted") && !strings.Contains(kill.Stdout.String(), "was not run again") {
		t.Errorf("killed host: the command is not reported interrupted:\n%s", kill.Stdout)
	}
	// The bound: the command's heartbeat timeout (20 s), host_wait, and a
	// model call and a few tasks; the ceiling is generous for a loaded
	// machine.
	t.Logf("killed host: the turn failed %s after the kill", failedAfter.Round(100*time.Millisecond))
	if failedAfter > 60*time.Second {
		t.Errorf("killed host: the turn failed %s after the kill, want about 20 s + host_wait", failedAfter)
	}
	if _, err := os.Stat(filepath.Join(k.Work, "again.txt")); err == nil {
		t.Fatal("the second command ran without a worker for its host")
	}
}
