package worker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
)

// Worker processes of one host find out at once when one of them dies:
// each holds an exclusive lock on a file of its own in a directory they
// share, and each waits for a shared lock on every other's file, which
// the kernel grants the moment the holder exits, however it died. The
// survivor then does what a worker restarted on the host would do
// ([Reclaim], [Unstick]): the dead process's running commands are
// reported interrupted, its model calls made afresh, its MCP calls,
// unified-exec calls and background terminals' watches ended, within a
// second instead of their heartbeat timeouts (minutes for quiet ones). Workers
// on other machines never see each other this way; their loss is found
// by the heartbeat timeouts.

// PeersDirEnv names the directory of the worker processes that watch
// each other (default: workers/ in the interpreter home, so the workers
// of one home watch each other). Workers given different directories act
// as if on different machines.
const PeersDirEnv = "INTERPRETER_PEERS_DIR"

// peerScan is how often a worker looks for new peers' files.
const peerScan = time.Second

func peersDir(home string) string {
	if d := os.Getenv(PeersDirEnv); d != "" {
		return d
	}
	if home == "" {
		home = filepath.Join(os.TempDir(), fmt.Sprintf("interpreter-%d", os.Getuid()))
	}
	return filepath.Join(home, "workers")
}

// watchPeers registers this process and watches the others until ctx
// ends; gone is called (on its own goroutine) after each peer that died.
func watchPeers(ctx context.Context, home string, gone func()) error {
	dir := peersDir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("peer directory: %w", err)
	}
	own := filepath.Join(dir, fmt.Sprintf("%d-%d.lock", os.Getpid(), time.Now().UnixNano()))
	f, err := os.OpenFile(own, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("peer file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return fmt.Errorf("locking the peer file: %w", err)
	}
	// f stays open (and locked) for the life of the process.
	go func() {
		<-ctx.Done()
		os.Remove(own)
		f.Close()
	}()
	go scanPeers(ctx, dir, own, gone)
	return nil
}

// scanPeers starts a wait on every peer file it has not seen yet.
func scanPeers(ctx context.Context, dir, own string, gone func()) {
	var mu sync.Mutex
	seen := map[string]bool{}
	t := time.NewTicker(peerScan)
	defer t.Stop()
	for first := true; ; first = false {
		names, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
		for _, name := range names {
			mu.Lock()
			fresh := name != own && !seen[name]
			seen[name] = true
			mu.Unlock()
			if fresh {
				go awaitPeer(name, first, gone)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// awaitPeer blocks until the process holding name's lock is gone, then
// removes the file and calls gone. A file found at start whose holder is
// gone already is only removed: the worker's own start-up reclaim covers
// what that process left.
func awaitPeer(name string, atStart bool, gone func()) {
	f, err := os.Open(name)
	if err != nil {
		return // removed meanwhile
	}
	defer f.Close()
	if atStart && syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) == nil {
		os.Remove(name)
		return
	}
	peersAwaited.Add(1)
	defer peersAwaited.Add(-1)
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		return
	}
	os.Remove(name)
	gone()
}

// peersAwaited counts the peers this process waits on (for tests).
var peersAwaited atomic.Int64

// reclaimPeers is the gone of a worker's peer watch: it reclaims the dead
// process's activities and unsticks its workflows, one at a time.
func reclaimPeers(c client.Client, o Options) func() {
	var mu sync.Mutex
	return func() {
		mu.Lock()
		defer mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ns := namespaceOr(o.Namespace)
		if err := Unstick(ctx, c, ns); err != nil {
			o.Reclaimed(0, err)
		}
		n, err := Reclaim(ctx, c, ns, o.Identity)
		o.Reclaimed(n, err)
	}
}
