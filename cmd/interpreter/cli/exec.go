package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	execfe "github.com/interpreter-dev/interpreter/frontend/exec"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/harness"
	_ "github.com/interpreter-dev/interpreter/harness/all" // registers every harness
	"github.com/interpreter-dev/interpreter/workflows"
)

// ExecCmd runs one turn non-interactively: `exec PROMPT` starts a thread,
// `exec resume THREAD_ID PROMPT` continues one. The flags mirror `codex
// exec`, so Codex's TypeScript SDK can drive this binary.
type ExecCmd struct {
	Model          string   `short:"m" help:"Model to use."`
	Provider       string   `help:"Model provider id (openai, oss, demo, or one from config.toml)."`
	OSS            bool     `name:"oss" help:"Shorthand for --provider oss."`
	Cd             string   `short:"C" name:"cd" help:"Working directory of the agent." placeholder:"DIR"`
	Sandbox        string   `short:"s" help:"Sandbox mode: read-only, workspace-write, danger-full-access."`
	ApprovalPolicy string   `name:"approval-policy" help:"Approval policy: untrusted, on-failure, on-request, never."`
	Harness        string   `help:"Harness: the prompt and tool dialect (see 'interpreter harness list'); default: chosen from the model family."`
	JSON           bool     `name:"json" aliases:"experimental-json" help:"Print events as JSON lines."`
	SkipGitCheck   bool     `name:"skip-git-repo-check" help:"Accepted for Codex compatibility (no git check is made)."`
	OutputSchema   string   `name:"output-schema" help:"JSON Schema file the final message must follow." placeholder:"FILE"`
	Images         []string `short:"i" name:"image" sep:"none" help:"Image file to attach to the prompt (PNG, JPEG, GIF or WebP; repeatable)." placeholder:"FILE"`
	AddDirs        []string `name:"add-dir" sep:"none" help:"Extra writable directory (workspace-write). Repeatable." placeholder:"DIR"`
	LastMessage    string   `short:"o" name:"output-last-message" help:"Also write the final message to this file." placeholder:"FILE"`
	FullAuto       bool     `name:"full-auto" help:"Shorthand for --sandbox workspace-write with approvals on request."`
	Bypass         bool     `name:"dangerously-bypass-approvals-and-sandbox" help:"No sandbox, no approvals."`
	Color          string   `help:"Accepted for Codex compatibility." default:"auto"`
	ThreadSource   string   `name:"thread-source" help:"Accepted for Codex compatibility (the SDK's threadSource)."`
	CyberAccess    string   `name:"cyber-access-program" help:"Accepted for Codex compatibility (the SDK's cyberAccessProgram)."`
	Goal           string   `help:"Start the thread on a goal: its turns go on by themselves until the goal is complete, blocked, paused or out of budget (docs/goals.md)." placeholder:"OBJECTIVE"`
	GoalBudget     int64    `name:"goal-token-budget" help:"With --goal: the goal's token budget." placeholder:"N"`
	Background     bool     `name:"background" help:"Start the turn as a background job and return at once, printing the thread's id: the turn runs with nobody attached, on a worker that outlives this command (see 'interpreter threads show' and 'exec resume')."`

	Args []string `arg:"" optional:"" help:"PROMPT, or: resume THREAD_ID [PROMPT]. '-' or no prompt reads stdin."`
}

func (e *ExecCmd) overrides() []string {
	var o []string
	set := func(k, v string) {
		if v != "" {
			o = append(o, fmt.Sprintf("%s=%q", k, v))
		}
	}
	if e.OSS && e.Provider == "" {
		e.Provider = "oss"
	}
	set("model", e.Model)
	set("model_provider", e.Provider)
	set("sandbox_mode", e.Sandbox)
	set("approval_policy", e.ApprovalPolicy)
	set("harness", e.Harness)
	if e.FullAuto {
		set("sandbox_mode", config.SandboxWorkspaceWrite)
		set("approval_policy", config.ApprovalOnRequest)
	}
	if e.Bypass {
		set("sandbox_mode", config.SandboxDangerFullAccess)
		set("approval_policy", config.ApprovalNever)
	}
	return o
}

// parseArgs splits the positional arguments and reads the prompt; reading
// it from a terminal, it says so on stderr first.
func (e *ExecCmd) parseArgs(stdin io.Reader, stderr io.Writer) (threadID, prompt string, err error) {
	args := e.Args
	if len(args) > 0 && args[0] == "resume" {
		if len(args) < 2 {
			return "", "", exitf(2, "exec resume needs a THREAD_ID")
		}
		threadID, args = args[1], args[2:]
		if err := workflows.CheckThreadID(threadID); err != nil {
			return "", "", exitf(2, "%v", err)
		}
	}
	if e.Goal != "" && threadID != "" {
		return "", "", exitf(2, "--goal starts a new thread; set a goal on an existing one with `interpreter goal set`")
	}
	if e.Goal != "" && len(args) == 0 {
		return "", e.Goal, nil // the goal's first turn works on the objective
	}
	if len(args) > 1 {
		return "", "", exitf(2, "expected one PROMPT argument, got %d (quote the prompt)", len(args))
	}
	switch {
	case len(args) == 1 && args[0] != "-":
		prompt = args[0]
	case threadID != "" && len(args) == 0 && execfe.IsTerminal(stdin):
		// A resume may only follow the running turn: the prompt is asked
		// for once it is known that none runs (see resume).
		return threadID, "", nil
	default:
		if prompt, err = execfe.ReadPrompt(stdin, stderr); err != nil {
			return "", "", err
		}
	}
	if strings.TrimSpace(prompt) == "" && threadID != "" {
		return threadID, "", nil // resume: follow the running turn, if any
	}
	if err := execfe.CheckPrompt(prompt); err != nil {
		return "", "", err
	}
	return threadID, prompt, nil
}

// Run runs the turn and prints it.
func (e *ExecCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	threadID, prompt, err := e.parseArgs(stdio.In, stdio.Err)
	if err != nil {
		return err
	}
	cfg, err := g.load(e.overrides())
	if err != nil {
		return err
	}
	if err := e.checkBackground(cfg, threadID, prompt); err != nil {
		return err
	}
	tc, err := threadConfig(cfg, e.Cd)
	if err != nil {
		return err
	}
	if err := config.AddWritableRoots(&tc, e.AddDirs); err != nil {
		return exitf(2, "%v", err)
	}
	var schemaNote string
	if e.OutputSchema != "" {
		schema, err := os.ReadFile(e.OutputSchema)
		if err != nil {
			return exitf(2, "reading --output-schema: %v", err)
		}
		schemaNote = "Your final message must be a single JSON value that validates against this JSON Schema, with nothing around it:\n" + string(schema)
		tc.DeveloperInstructions += "\n" + schemaNote
	}
	images, err := attachImages(e.Images, tc)
	if err != nil {
		return err
	}
	// The key is checked here only when this process will host the
	// worker; a worker elsewhere has its own environment.
	b, err := connectHosting(ctx, cfg, stdio.Err, func() error { return missingKey(tc) })
	if err != nil {
		return err
	}
	defer b.Close()
	tc.SearchAttributes = hasSearchAttributes(ctx, b, cfg.Temporal.Namespace)
	s := &execfe.Session{Client: b.client, JSON: e.JSON, LastMessage: e.LastMessage, IO: execfe.Stdio(stdio)}
	if tc.Provider.ID == "demo" {
		fmt.Fprintf(stdio.Err, "interpreter: model: the built-in scripted DEMO model (not a real LLM; use --provider to pick a real one)\n")
	}

	req := workflows.StartTurnRequest{Prompt: prompt, Images: images}
	if threadID != "" {
		req.Model, req.SandboxMode, req.ApprovalPolicy = e.Model, e.Sandbox, e.ApprovalPolicy
		if schemaNote != "" && prompt != "" {
			// A resumed thread keeps its config: the SDK's per-turn
			// outputSchema reaches the model with this turn's prompt.
			req.Prompt += "\n\n" + schemaNote
		}
		if e.Cd != "" {
			req.Cwd = tc.Cwd
		}
		if e.Background {
			return e.resumeBackground(ctx, cfg, b, s, threadID, req, stdio)
		}
		return s.Resume(ctx, threadID, req, func() { e.announce(cfg, b, stdio, threadID) })
	}
	threadID = threads.NewID()
	nt := threads.NewThread{ThreadID: threadID, TaskQueue: cfg.Temporal.TaskQueue, Config: tc}
	if e.Background {
		return e.startBackground(ctx, cfg, b, s, nt, req, stdio)
	}
	if e.Goal != "" {
		return s.StartGoal(ctx, nt, req, e.Goal, e.GoalBudget, func() { e.announce(cfg, b, stdio, threadID) })
	}
	return s.Start(ctx, nt, req, func() { e.announce(cfg, b, stdio, threadID) })
}

// announce prints where to watch the thread.
func (e *ExecCmd) announce(cfg *config.Config, b *backend, stdio Stdio, threadID string) {
	if u := uiURL(cfg, b); u != "" {
		fmt.Fprintf(stdio.Err, "interpreter: watch this thread at %s/namespaces/%s/workflows/%s\n", u, cfg.Temporal.Namespace, url.PathEscape(threadID))
	} else if b.embedded {
		fmt.Fprintf(stdio.Err, "interpreter: (no Web UI in this process: run `interpreter dev` in another terminal to watch turns)\n")
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

// attachImages checks the --image files here, before anything is sent:
// each must be a readable picture within the provider's size bound, and
// the model must take pictures. The worker on the workspace host reads
// them again into the store.
func attachImages(paths []string, tc workflows.ThreadConfig) ([]activities.ImageSource, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if err := harness.CheckImages(tc.Model, len(paths), tc.ImagesSupported); err != nil {
		return nil, exitf(2, "%v", err)
	}
	limit := int64(activities.MaxImageBytes)
	if tc.Provider.WireAPI == activities.WireMessages {
		limit = activities.MaxImageBytesMessages
	}
	var out []activities.ImageSource
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, exitf(2, "--image %s: %v", p, err)
		}
		if _, _, err := activities.ReadImage("", abs, limit); err != nil {
			return nil, exitf(2, "--image: %v", err)
		}
		out = append(out, activities.ImageSource{Path: abs})
	}
	return out, nil
}

// checkAPIKey refuses a thread whose provider key this process's
// environment lacks, but only when this process's environment is the
// worker's (an embedded server, or an `interpreter dev` it started): a
// worker elsewhere has its own, and fails the turn at once if it lacks the
// key, with the same message.
func checkAPIKey(tc workflows.ThreadConfig, b *backend) error {
	if !(b.embedded || b.background) {
		return nil
	}
	return missingKey(tc)
}

// missingKey reports the provider key this process's environment lacks.
func missingKey(tc workflows.ThreadConfig) error {
	p := tc.Provider
	if p.EnvKey == "" || os.Getenv(p.EnvKey) != "" {
		return nil
	}
	return exitf(1, "%s", activities.MissingKeyMessage(p))
}

// threadConfig is the configuration's settings for a thread working in cd
// (exit 2 when they are wrong).
func threadConfig(cfg *config.Config, cd string) (workflows.ThreadConfig, error) {
	tc, err := cfg.ThreadConfig(cd)
	if err != nil {
		return tc, exitf(2, "%v", err)
	}
	return tc, nil
}
