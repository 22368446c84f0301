// Package exec is the `exec` front end: it starts or resumes a thread's
// turn through package threads and shows it as `codex exec` does, a
// transcript for a person on stderr with the answer on stdout, or with
// --json the JSON events of `codex exec --json` on stdout.
package exec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"golang.org/x/term"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// Stdio are the streams exec shows a turn on (answers to approval
// prompts come from In).
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// ExitError is an error with the exit code the command ends with.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }

// ExitCode is the code the process exits with.
func (e *ExitError) ExitCode() int { return e.Code }

func exitf(code int, format string, args ...any) error {
	return &ExitError{Code: code, Err: fmt.Errorf(format, args...)}
}

// Session shows the turns exec runs on one thread.
type Session struct {
	Client client.Client
	// JSON prints `codex exec --json` events instead of a transcript.
	JSON bool
	// LastMessage is a file the final message is also written to.
	LastMessage string
	IO          Stdio

	p     *printer
	stdin *bufio.Reader // answers to approval prompts
}

// Start starts a thread with its first turn and shows the turn to its
// end; announce says where to watch it, once the thread is named.
func (s *Session) Start(ctx context.Context, nt threads.NewThread, req workflows.StartTurnRequest, announce func()) error {
	s.init()
	resp, err := threads.Start(ctx, s.Client, nt, req)
	if err != nil {
		return turnExit(nt.ThreadID, err)
	}
	s.p.threadStarted(nt.ThreadID, resp.TurnID)
	announce()
	return s.follow(ctx, nt.ThreadID, resp.TurnID)
}

// Resume continues a thread (see resumer): it follows the running turn,
// if any, then runs req (Prompt "" only follows).
func (s *Session) Resume(ctx context.Context, threadID string, req workflows.StartTurnRequest, announce func()) error {
	s.init()
	r := resumer{s: s, threadID: threadID, req: req, announce: announce}
	return r.run(ctx)
}

func (s *Session) init() {
	if s.p == nil {
		s.p = newPrinter(s.JSON, s.IO)
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func rootCause(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// ReadPrompt reads the prompt from stdin, saying so on a terminal.
func ReadPrompt(stdin io.Reader, stderr io.Writer) (string, error) {
	if IsTerminal(stdin) {
		fmt.Fprintf(stderr, "interpreter: reading the prompt from stdin (end it with Ctrl-D)\n")
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		return "", exitf(1, "reading the prompt from stdin: %v", err)
	}
	return string(b), nil
}

// CheckPrompt refuses an empty prompt and one over the input limits.
func CheckPrompt(prompt string) error {
	if strings.TrimSpace(prompt) == "" {
		return exitf(2, "no prompt: pass it as an argument or on stdin")
	}
	if err := workflows.CheckInput("Input", prompt); err != nil {
		return exitf(2, "%v", err)
	}
	return nil
}

// turnExit turns the errors of starting a turn into exit errors.
func turnExit(threadID string, err error) error {
	if errors.Is(err, threads.ErrThreadNotFound) {
		return exitf(1, "thread not found: %s", threadID)
	}
	if errors.Is(err, threads.ErrThreadArchived) {
		return exitf(1, "thread %s is archived; it takes no more turns", threadID)
	}
	return exitf(1, "%v", rootCause(err))
}

// follow prints the turn's events until it ends and exits with its
// outcome; Ctrl-C interrupts the turn (it stops in the workflow, not just
// here).
func (s *Session) follow(ctx context.Context, threadID, turnID string) error {
	res, err := s.watch(ctx, threadID, turnID, true)
	if err != nil {
		return err
	}
	if s.LastMessage != "" {
		if err := writeLastMessage(s.LastMessage, res.FinalMessage); err != nil {
			return err
		}
	}
	if res.Status != workflows.StatusCompleted {
		return &ExitError{Code: 1, Err: fmt.Errorf("turn %s: %s", res.Status, orDefault(res.Error, "no error message"))}
	}
	return nil
}

func writeLastMessage(path, msg string) error {
	if err := os.WriteFile(path, []byte(msg), 0o644); err != nil {
		return exitf(1, "writing %s: %v", path, err)
	}
	return nil
}

// watch prints the turn's events from its start (asking the approvals
// still pending among them) and its end; last: its final message is the
// answer (on stdout), not one turn among those exec shows.
func (s *Session) watch(ctx context.Context, threadID, turnID string, last bool) (workflows.TurnResult, error) {
	fctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-ctx.Done():
			fmt.Fprintf(s.IO.Err, "interpreter: interrupting turn %s\n", turnID)
			ictx, icancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = threads.Interrupt(ictx, s.Client, threadID)
			icancel()
			time.AfterFunc(15*time.Second, cancel)
		case <-fctx.Done():
		}
	}()
	onEvent := func(ev workflows.Event) {
		s.p.event(ev)
		// A sub-agent's approval, relayed into this turn's log, names
		// the sub-agent's thread: answer reads and decides it there.
		if (ev.Type == workflows.EventApprovalRequested || ev.Type == workflows.EventAgentApprovalRequested) && ev.Approval != nil {
			s.answer(fctx, *ev.Approval)
		}
	}
	// The log alone: exec shows items once they are done.
	for u := range threads.NewStream(s.Client, turnID, 0, threads.StreamOptions{}).Updates(fctx) {
		switch u.Kind {
		case threads.UpdateEvent:
			onEvent(u.Event)
		case threads.UpdateEnd:
			switch {
			case u.Err != nil && u.ErrOutcome:
				return workflows.TurnResult{}, exitf(1, "reading the result of turn %s: %v", turnID, u.Err)
			case u.Err != nil:
				return workflows.TurnResult{}, exitf(1, "following turn %s: %v", turnID, u.Err)
			}
			s.p.finish(*u.Result, last)
			return *u.Result, nil
		}
	}
	return workflows.TurnResult{}, exitf(1, "following turn %s: %v", turnID, fctx.Err())
}

// answer decides a pending approval: on the terminal when stdin is one
// (y/n/a), otherwise by the non-interactive default: deny, and the model
// is told. An approval already decided (elsewhere, or before this front
// end attached) is left alone.
func (s *Session) answer(ctx context.Context, a workflows.Approval) {
	pending, err := threads.PendingApprovals(ctx, s.Client, a.ThreadID)
	if err != nil {
		return
	}
	waiting := false
	for _, p := range pending {
		waiting = waiting || (p.ThreadID == a.ThreadID && p.ItemID == a.ItemID)
	}
	if !waiting {
		return
	}
	decision := workflows.DecisionDeny
	if IsTerminal(s.IO.In) {
		if s.stdin == nil {
			s.stdin = bufio.NewReader(s.IO.In)
		}
		decision = ""
		for decision == "" {
			fmt.Fprintf(s.IO.Err, "Approve %s? [y]es / [n]o / [a]lways for this thread / a[b]ort the turn: ", a.ItemID)
			line, err := s.stdin.ReadString('\n')
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				decision = workflows.DecisionApprove
			case "a", "always":
				decision = workflows.DecisionApproveForSession
			case "b", "abort":
				decision = workflows.DecisionAbort
			case "n", "no":
				decision = workflows.DecisionDeny
			}
			if err != nil && decision == "" {
				decision = workflows.DecisionDeny
			}
		}
	} else {
		fmt.Fprintf(s.IO.Err, "interpreter: %s needs approval and stdin is not a terminal: denied (the model is told). "+
			"To decide yourself, run in a terminal, or keep this thread waiting with `interpreter approve`.\n", a.ItemID)
	}
	if _, err := threads.Decide(ctx, s.Client, workflows.ApprovalDecision{ThreadID: a.ThreadID, ItemID: a.ItemID, Decision: decision}); err != nil {
		fmt.Fprintf(s.IO.Err, "interpreter: %v\n", rootCause(err))
	}
}

// IsTerminal tells whether r is a terminal.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
