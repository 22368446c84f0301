package cli

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	execfe "github.com/interpreter-dev/interpreter/frontend/exec"
	"github.com/interpreter-dev/interpreter/sandbox"
)

// openPTY opens a pseudo-terminal pair: the master (the user's side)
// and the terminal the program reads.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, s, err := sandbox.OpenPTY(24, 80)
	if errors.Is(err, sandbox.ErrNoPTY) {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// noticeWriter keeps what is written and signals the first write.
type noticeWriter struct {
	mu    sync.Mutex
	b     strings.Builder
	wrote chan struct{}
}

func newNoticeWriter() *noticeWriter { return &noticeWriter{wrote: make(chan struct{})} }

func (w *noticeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() == 0 {
		close(w.wrote)
	}
	return w.b.Write(p)
}

func (w *noticeWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// exec resume without a prompt, on a terminal, reads nothing at first (a
// running turn is only followed); once nothing runs it asks for the
// prompt on stdin, saying so. From a pipe it reads silently.
func TestExecResumeSaysItReadsStdin(t *testing.T) {
	master, tty := openPTY(t)
	e := &ExecCmd{Args: []string{"resume", "th-1"}}
	if id, prompt, err := e.parseArgs(tty, newNoticeWriter()); err != nil || id != "th-1" || prompt != "" {
		t.Fatalf("parsed %q %q %v; want the thread and no prompt yet", id, prompt, err)
	}
	stderr := newNoticeWriter()
	type read struct {
		prompt string
		err    error
	}
	done := make(chan read, 1)
	go func() {
		prompt, err := execfe.ReadPrompt(tty, stderr)
		done <- read{prompt, err}
	}()
	select {
	case <-stderr.wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("nothing said on stderr")
	}
	if got := stderr.String(); got != "interpreter: reading the prompt from stdin (end it with Ctrl-D)\n" {
		t.Fatalf("stderr %q", got)
	}
	if _, err := master.Write([]byte("hello\n\x04")); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-done:
		if p.err != nil || p.prompt != "hello\n" {
			t.Fatalf("read %+v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-D did not end the prompt")
	}

	quiet := newNoticeWriter()
	if _, prompt, err := e.parseArgs(strings.NewReader("from a pipe"), quiet); err != nil || prompt != "from a pipe" || quiet.String() != "" {
		t.Fatalf("from a pipe: %q, %v, stderr %q", prompt, err, quiet.String())
	}
	if _, prompt, err := e.parseArgs(strings.NewReader(""), quiet); err != nil || prompt != "" {
		t.Fatalf("resume with an empty pipe: %q, %v; want no prompt (follow only)", prompt, err)
	}
	if _, _, err := (&ExecCmd{}).parseArgs(strings.NewReader(""), quiet); err == nil {
		t.Fatal("a new thread without a prompt was accepted")
	}
}
