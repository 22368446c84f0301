package appserver

import (
	"context"
	"time"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Backend is the durable agent as this server sees it: threads and turns
// that live in Temporal workflows. The command wires it to a Temporal
// client; unit tests use an in-memory one.
//
// Errors about an unknown thread wrap threads.ErrThreadNotFound.
type Backend interface {
	// NewThread resolves a thread's configuration from the server's own
	// configuration and the settings a client asked for, and creates the
	// thread (with no turn yet).
	NewThread(ctx context.Context, s ThreadSettings) (ThreadInfo, error)
	// Thread reads one thread, with its view (config, finished turns,
	// running turn, token totals).
	Thread(ctx context.Context, threadID string) (ThreadInfo, error)
	// ListThreads pages through threads, newest first. View is nil in the
	// results.
	ListThreads(ctx context.Context, q ListQuery) (ThreadPage, error)
	// StartTurn sends a turn to a thread; it returns once the thread
	// accepted it.
	StartTurn(ctx context.Context, threadID string, req workflows.StartTurnRequest) (workflows.StartTurnResponse, error)
	// TurnLog reads what a turn has logged so far, and the prompt it
	// started with.
	TurnLog(ctx context.Context, turnID string) (TurnLog, error)
	// Follow calls fn for every event of a turn after sequence number
	// after, in order, until the turn ends or ctx is done. It returns the
	// turn's result when that came with the end (nil: ask Outcome).
	Follow(ctx context.Context, turnID string, after int, fn func(workflows.Event)) (*workflows.TurnResult, error)
	// Outcome waits for a turn's result.
	Outcome(ctx context.Context, turnID string) (workflows.TurnResult, error)
	// Interrupt stops the thread's running turn.
	Interrupt(ctx context.Context, threadID string) error

	// ForkThread creates a thread that continues from another thread's
	// history as of its last finished turn, with the settings given
	// (empty fields keep the source thread's).
	ForkThread(ctx context.Context, sourceID string, s ThreadSettings) (ThreadInfo, error)
	// Models lists the models a client may pick, the default first.
	Models(ctx context.Context) ([]ModelInfo, error)
	// Config reads the effective configuration as config.toml keys.
	Config(ctx context.Context) (map[string]any, error)
	// Exec runs one command outside any turn and returns its outcome.
	Exec(ctx context.Context, r ExecRequest) (ExecResult, error)
	// StartExec starts command/exec's command in its streaming form
	// (see [ExecStream]); ctx bounds only the start.
	StartExec(ctx context.Context, r ExecRequest, o StreamOptions) (ExecStream, error)

	// Pending lists what a running turn waits for from a client.
	Pending(ctx context.Context, turnID string) (Pending, error)
	// Decide delivers an approval decision to a turn; a decision for an
	// approval that is not pending is refused.
	Decide(ctx context.Context, turnID string, d workflows.ApprovalDecision) error
	// AnswerDynamic delivers a dynamic tool call's result to a turn.
	AnswerDynamic(ctx context.Context, turnID string, a workflows.DynamicAnswer) error
	// Steer adds input to the thread's running turn turnID.
	Steer(ctx context.Context, threadID, turnID, prompt string) error
	// SetName names a thread.
	SetName(ctx context.Context, threadID, name string) error
	// Archive archives an idle thread; Unarchive brings it back (a new
	// run of its workflow from its last state).
	Archive(ctx context.Context, threadID string) error
	Unarchive(ctx context.Context, threadID string) (ThreadInfo, error)

	// Live reads what a running turn's commands write and its model calls
	// stream, for item/commandExecution/outputDelta and
	// item/agentMessage/delta while they happen; nil when there is no
	// live view.
	Live(turnID string) LiveReader
}

// Pending is what a running turn waits for from a client.
type Pending struct {
	Approvals []workflows.Approval
	Dynamic   []workflows.DynamicCall
}

// ModelInfo is one model of model/list.
type ModelInfo struct {
	ID          string
	DisplayName string
	Provider    string
	IsDefault   bool
}

// ExecRequest is command/exec's command.
type ExecRequest struct {
	Command []string
	Cwd     string // absolute
	// Env overrides the server's environment; a nil value unsets.
	Env         map[string]*string
	SandboxMode string
	Timeout     time.Duration // 0: none
	// OutputCap bounds each of stdout and stderr (bytes; 0: no bound).
	OutputCap int
}

// ExecResult is a finished command.
type ExecResult struct {
	ExitCode int
	Stdout   string
	Stderr   string
}

// ThreadSettings are what a client may choose for a new thread; empty
// fields take the server's configuration.
type ThreadSettings struct {
	Model                 string
	ModelProvider         string
	Cwd                   string // absolute
	ApprovalPolicy        string // untrusted | on-failure | on-request | never
	SandboxMode           string // read-only | workspace-write | danger-full-access
	BaseInstructions      string
	DeveloperInstructions string
	// Config are config.toml keys (dotted) and their values, as the
	// protocol's `config` parameter carries them.
	Config map[string]any
	// DynamicTools are the client's tools (dynamicTools, experimental).
	DynamicTools []workflows.ExternalTool
}

// ThreadInfo is one thread.
type ThreadInfo struct {
	ID        string
	Config    workflows.ThreadConfig
	CreatedAt time.Time
	UpdatedAt time.Time
	// Preview is the thread's first prompt, if known.
	Preview string
	// View is the thread's state (nil in lists).
	View *workflows.ThreadView
	// ForkedFrom names the thread this one was forked from.
	ForkedFrom string
	// Name is the thread's name (thread/name/set).
	Name string
	// Archived is set for an archived thread.
	Archived bool
	// InstructionSources are the instructions files (AGENTS.md...) a
	// turn of the thread reads (thread/start's instructionSources).
	InstructionSources []string
	// Parent is set for a sub-agent's thread (from its memo in lists).
	Parent *workflows.AgentParent
}

// ListQuery asks for one page of threads.
type ListQuery struct {
	Limit  int
	Cursor string
	// Archived lists archived threads instead of open ones.
	Archived bool
}

// ThreadPage is one page of threads; NextCursor is empty on the last.
type ThreadPage struct {
	Threads    []ThreadInfo
	NextCursor string
}

// TurnLog is what a turn has logged so far.
type TurnLog struct {
	Prompt string
	Events []workflows.Event
	// Last is the sequence number of the newest event.
	Last int
	Done bool
	// Result is the turn's result once it has ended, which may be before
	// its run has closed and its thread has taken it in.
	Result *workflows.TurnResult
}

// ViewNowBackend reads a thread's view as it is at once, with no wait
// for the thread to take in a turn's end just told (a Temporal client's
// [Backend.Thread] waits for that, briefly; the usage sent before
// turn/completed need not).
type ViewNowBackend interface {
	ViewNow(ctx context.Context, threadID string) (workflows.ThreadView, error)
}

// viewNow is b's view of a thread now: through ViewNow when it has one.
func viewNow(ctx context.Context, b Backend, threadID string) (*workflows.ThreadView, error) {
	if vb, ok := b.(ViewNowBackend); ok {
		v, err := vb.ViewNow(ctx, threadID)
		return &v, err
	}
	info, err := b.Thread(ctx, threadID)
	return info.View, err
}
