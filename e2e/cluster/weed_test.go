package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// The S3 credentials of the test's SeaweedFS (its only identity) and the
// bucket it makes.
const (
	s3Key    = "interpreter-test"
	s3Secret = "interpreter-test-secret"
	s3Bucket = "agents"
)

// weedBinary finds SeaweedFS's `weed`: $INTERPRETER_WEED, then $GOBIN /
// $HOME/go/bin, then PATH. .ci/run builds it.
func weedBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("INTERPRETER_WEED"); p != "" {
		return p
	}
	for _, dir := range []string{os.Getenv("GOBIN"), filepath.Join(os.Getenv("HOME"), "go", "bin")} {
		if p := filepath.Join(dir, "weed"); dir != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("weed"); err == nil {
		return p
	}
	t.Fatal("SeaweedFS is not installed: .ci/run builds it (github.com/seaweedfs/seaweedfs/weed) into $GOPATH/bin; or set INTERPRETER_WEED")
	return ""
}

// weed is a SeaweedFS `weed mini` (master, volume, filer and S3 gateway
// in one process) on loopback ports of its own, with one identity and the
// bucket; it can be stopped and started again on the same data.
type weed struct {
	t     *testing.T
	bin   string
	dir   string
	ports []int
	proc  *exec.Cmd
	done  chan struct{}
	log   *e2etest.SyncBuffer
}

func startWeed(t *testing.T) *weed {
	t.Helper()
	w := &weed{t: t, bin: weedBinary(t), dir: t.TempDir(), log: &e2etest.SyncBuffer{}}
	for range 11 {
		w.ports = append(w.ports, freePort(t))
	}
	w.start()
	t.Cleanup(w.stop)
	return w
}

// url is the [store] url of the bucket, under a prefix.
func (w *weed) url() string {
	return fmt.Sprintf("s3://%s/cluster?endpoint=http://127.0.0.1:%d&use_path_style=true&region=us-east-1", s3Bucket, w.ports[6])
}

func (w *weed) start() {
	t := w.t
	t.Helper()
	p := w.ports
	args := []string{"mini", "-dir=" + w.dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		fmt.Sprintf("-master.port=%d", p[0]), fmt.Sprintf("-master.port.grpc=%d", p[1]),
		fmt.Sprintf("-volume.port=%d", p[2]), fmt.Sprintf("-volume.port.grpc=%d", p[3]),
		fmt.Sprintf("-filer.port=%d", p[4]), fmt.Sprintf("-filer.port.grpc=%d", p[5]),
		fmt.Sprintf("-s3.port=%d", p[6]), fmt.Sprintf("-s3.port.grpc=%d", p[7]),
		fmt.Sprintf("-admin.port=%d", p[8]), fmt.Sprintf("-admin.port.grpc=%d", p[9]),
		fmt.Sprintf("-debug.port=%d", p[10]),
		"-admin.port.legacy=0", "-s3.port.iceberg=0", "-s3.port.lance=0",
		"-webdav=false", "-admin.ui=false", "-master.telemetry=false"}
	w.proc = exec.Command(w.bin, args...)
	w.proc.Dir = w.dir
	// These create the identity and the bucket as the server starts.
	w.proc.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+s3Key, "AWS_SECRET_ACCESS_KEY="+s3Secret, "S3_BUCKET="+s3Bucket)
	w.proc.Stdout, w.proc.Stderr = w.log, w.log
	if err := w.proc.Start(); err != nil {
		t.Fatal(err)
	}
	w.done = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { _ = c.Wait(); close(done) }(w.proc, w.done)
	// Ready: a blob written and read back with the test's credentials.
	e2etest.WaitUntil(t, func() bool {
		select {
		case <-w.done:
			t.Fatalf("weed mini exited:\n%s", w.log)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b, err := activities.OpenBucket(ctx, w.url())
		if err != nil {
			return false
		}
		defer b.Close()
		return b.Check(ctx) == nil
	}, 120*time.Second, "SeaweedFS's S3 gateway", w.log.String)
}

// stop ends the server (SIGTERM, then SIGKILL) and waits for it.
func (w *weed) stop() {
	if w.proc == nil || w.proc.Process == nil {
		return
	}
	_ = w.proc.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.done:
	case <-time.After(20 * time.Second):
		_ = w.proc.Process.Kill()
		<-w.done
	}
	w.proc = nil
}

// s3Env are the environment variables of a process that uses the bucket.
func s3Env(secret string) []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s3Key, "AWS_SECRET_ACCESS_KEY=" + secret, "AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_EC2_METADATA_DISABLED=true"}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
