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
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	execfe "github.com/interpreter-dev/interpreter/frontend/exec"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/harness"
	_ "github.com/interpreter-dev/interpreter/harness/all" // registers every harness
	"github.com/interpreter-dev/interpreter/harness/codex"
	"github.com/interpreter-dev/interpreter/sandbox"
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
	tc, err := threadConfig(cfg, e.Cd)
	if err != nil {
		return err
	}
	if err := addWritableRoots(&tc, e.AddDirs); err != nil {
		return err
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
		return s.Resume(ctx, threadID, req, func() { e.announce(cfg, b, stdio, threadID) })
	}
	threadID = threads.NewID()
	nt := threads.NewThread{ThreadID: threadID, TaskQueue: cfg.Temporal.TaskQueue, Config: tc}
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

func threadConfig(cfg *config.Config, cd string) (workflows.ThreadConfig, error) {
	prov, err := cfg.Provider(cfg.ModelProvider)
	if err != nil {
		return workflows.ThreadConfig{}, exitf(2, "%v", err)
	}
	model := cfg.Model
	if model == "" {
		model = defaultModel(cfg.ModelProvider)
	}
	if cd == "" {
		cd = "."
	}
	cwd, err := filepath.Abs(cd)
	if err != nil {
		return workflows.ThreadConfig{}, exitf(2, "bad --cd: %v", err)
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return workflows.ThreadConfig{}, exitf(2, "working directory %s does not exist", cwd)
	}
	// The harness is settled before anything is sent: an explicit one must
	// fit the provider's wire API; without one, the model family decides.
	route, err := harness.Choose(cfg.Harness, prov.WireAPI, cfg.ModelProvider, prov.BaseURL, model)
	if err != nil {
		return workflows.ThreadConfig{}, exitf(2, "%v", err)
	}
	harnessName := route.Harness.Info().Name
	if harnessName == codex.Name && !cfg.UnifiedExec() {
		harnessName = codex.ShellName
	}
	if err := cfg.Reasoning().CheckModel(model); err != nil {
		return workflows.ThreadConfig{}, exitf(2, "%v", err)
	}
	mem, err := memoryOptions(cfg)
	if err != nil {
		return workflows.ThreadConfig{}, exitf(2, "%v", err)
	}
	compactPrompt := cfg.CompactPrompt
	if cfg.CompactPromptFile != "" {
		b, err := os.ReadFile(cfg.CompactPromptFile)
		if err != nil {
			return workflows.ThreadConfig{}, exitf(2, "reading experimental_compact_prompt_file: %v", err)
		}
		compactPrompt = string(b)
	}
	headers := map[string]string{}
	for k, v := range prov.HTTPHeaders {
		headers[k] = v
	}
	tc := workflows.ThreadConfig{
		Model: model,
		Provider: activities.ProviderSpec{ID: cfg.ModelProvider, Name: prov.Name, BaseURL: prov.BaseURL,
			WireAPI: prov.WireAPI, EnvKey: prov.EnvKey, Headers: headers,
			RequestMaxRetries: prov.RequestMaxRetries, StreamMaxRetries: prov.StreamMaxRetries,
			StreamIdleTimeoutMs: idleTimeoutMs(prov.StreamIdleTimeoutMs)},
		Harness: harnessName, NoHarnessGuidance: cfg.HarnessGuidance != nil && !*cfg.HarnessGuidance, Cwd: cwd, SandboxMode: cfg.SandboxMode, ApprovalPolicy: cfg.ApprovalPolicy,
		ImagesSupported: cfg.ModelSupportsImages,
		Reasoning:       cfg.Reasoning(), ProjectDocMaxBytes: projectDocMaxBytes(cfg.ProjectDocMaxBytes),
		ProjectDocFallbacks: cfg.ProjectDocFallbackFilenames,
		MaxSteps:            cfg.MaxSteps, TurnTimeout: cfg.TurnTimeout.Duration, HostQueue: cfg.Temporal.HostQueue,
		HostWait:     cfg.Temporal.HostWait.Duration,
		StallTimeout: max(cfg.StallTimeout.Duration, 0), DynamicToolTimeout: cfg.DynamicToolTimeout.Duration,
		ModelCalls:      modelCalls(cfg.Temporal.LocalModelCalls),
		NetworkAccess:   cfg.WorkspaceWrite.NetworkAccess,
		ApprovalTimeout: cfg.Approvals.Timeout.Duration, ApprovalDefault: cfg.Approvals.DefaultDecision,
		NotifyCommand: cfg.Approvals.NotifyCommand, WebhookURL: cfg.Approvals.WebhookURL,
		ContextWindow: cfg.ModelContextWindow, AutoCompactTokenLimit: cfg.ModelAutoCompactTokenLimit,
		CompactPrompt: compactPrompt, Memories: mem.Enabled, MemoryIdle: mem.IdleAfter,
		MCPServers: mcpServers(cfg),
	}
	env := cfg.ShellEnvironment
	if env.IgnoreDefaultExcludes || len(env.Exclude)+len(env.IncludeOnly)+len(env.Allow) > 0 {
		tc.EnvPolicy = &sandbox.EnvPolicy{IgnoreDefaultExcludes: env.IgnoreDefaultExcludes,
			Exclude: env.Exclude, IncludeOnly: env.IncludeOnly, Allow: env.Allow}
	}
	if err := addWritableRoots(&tc, cfg.WorkspaceWrite.WritableRoots); err != nil {
		return workflows.ThreadConfig{}, err
	}
	if cfg.MultiAgent() && offersAgents(harnessName) {
		a := cfg.Agents
		tc.Agents = &workflows.AgentsConfig{Enabled: true, MaxThreads: a.MaxThreads, MaxDepth: a.MaxDepth,
			JobRuntime: time.Duration(a.JobMaxRuntimeSeconds) * time.Second, Models: a.Models}
	}
	return tc, nil
}

// offersAgents tells whether a harness has sub-agent tools: Codex's, or
// its CLI's own (claude-code's Task, kimi-cli's Agent).
func offersAgents(name string) bool {
	if name == codex.Name || name == codex.ShellName {
		return true
	}
	h, err := harness.Lookup(name)
	if err != nil {
		return false
	}
	_, ok := h.(harness.AgentRunner)
	return ok
}

// addWritableRoots checks and adds extra writable roots: each must be an
// existing directory (a typo must not silently change the sandbox).
func addWritableRoots(tc *workflows.ThreadConfig, dirs []string) error {
	for _, d := range dirs {
		abs, err := filepath.Abs(config.ExpandHome(d))
		if err != nil {
			return exitf(2, "writable root %q: %v", d, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return exitf(2, "writable root %s does not exist or is not a directory (sandbox_workspace_write.writable_roots / --add-dir)", abs)
		}
		tc.WritableRoots = append(tc.WritableRoots, abs)
	}
	return nil
}

func defaultModel(provider string) string {
	switch provider {
	case "demo":
		return "demo"
	case "oss":
		return "gpt-oss:20b"
	case "anthropic":
		return "claude-sonnet-4-5"
	}
	return "gpt-5.1"
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

// modelCalls maps temporal.local_model_calls to how turns run model calls:
// unset, in the workflow task for a short budget, then handed off; false,
// always as regular activities; true, always as local activities.
func modelCalls(local *bool) string {
	switch {
	case local == nil:
		return workflows.ModelCallsAuto
	case *local:
		return workflows.ModelCallsLocal
	}
	return workflows.ModelCallsActivity
}

// projectDocMaxBytes maps project_doc_max_bytes onto the thread's setting:
// unset is the default (0), and 0 reads no project files (-1).
func projectDocMaxBytes(v *int) int {
	switch {
	case v == nil:
		return 0
	case *v == 0:
		return -1
	}
	return *v
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

// idleTimeoutMs is stream_idle_timeout_ms as the provider spec carries it
// (0: the default).
func idleTimeoutMs(ms *int) int64 {
	if ms == nil || *ms <= 0 {
		return 0
	}
	return int64(*ms)
}
