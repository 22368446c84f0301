package worker

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestMain lets the test binary act as a peer worker process that only
// registers itself and waits (PEER_HOLD names the directory).
func TestMain(m *testing.M) {
	if dir := os.Getenv("PEER_HOLD"); dir != "" {
		os.Setenv(PeersDirEnv, dir)
		if err := watchPeers(context.Background(), "", func() {}); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("holding")
		select {}
	}
	os.Exit(m.Run())
}

// A worker watching its peers hears of one's death (a SIGKILL) at once,
// and not of the peers that live on.
func TestPeerWatchHearsOfAPeerKilled(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(PeersDirEnv, dir)
	peer := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PEER_HOLD="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "holding\n" {
			t.Fatalf("peer: %q", line)
		}
		return cmd
	}
	victim, survivor := peer(), peer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gone := make(chan struct{}, 2)
	if err := watchPeers(ctx, "", func() { gone <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	for peersAwaited.Load() < 2 { // both peers' files seen and waited on
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
	killed := time.Now()
	victim.Process.Kill()
	select {
	case <-gone:
		t.Logf("heard of the dead peer %v after the kill", time.Since(killed).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatal("no word of the killed peer")
	}
	select {
	case <-gone:
		t.Fatal("a peer that lives was taken for dead")
	case <-time.After(2 * peerScan): // a window to be wrong in
	}
	if survivor.ProcessState != nil {
		t.Fatal("the surviving peer ended")
	}
}
