package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/appserver"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/workflows"
)

// AppCmd serves Codex's app-server protocol on stdin/stdout, or over
// WebSocket (listen.go).
type AppCmd struct {
	Listen       string `default:"stdio://" placeholder:"ADDR" help:"Transport: stdio:// (one JSON message per line on stdin/stdout), ws://HOST:PORT or unix://PATH (WebSocket, many clients; codex --remote ADDR)."`
	AuthTokenEnv string `name:"auth-token-env" placeholder:"VAR" help:"Require the bearer token in environment variable VAR on every WebSocket upgrade (needed to bind a non-loopback address)."`
}

// Run serves one client until stdin closes. Threads and turns live in
// workflows: running turns go on when this process ends, and any later
// app-server process continues them (thread/resume).
func (a *AppCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	ep, err := bindListen(a.Listen, a.AuthTokenEnv)
	if err != nil {
		return err
	}
	defer ep.Close()
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	b, err := connect(ctx, cfg, stdio.Err)
	if err != nil {
		return err
	}
	defer b.Close()
	be := &appBackend{b: b, g: g, cfg: cfg, searchAttrs: hasSearchAttributes(ctx, b, cfg.Temporal.Namespace)}
	srv := appserver.New(be, appserver.Options{Version: Version, Home: cfg.Home(), Log: stdio.Err})
	return serveApp(ctx, srv, ep, stdio)
}

// appBackend is the app-server's Backend over a Temporal client.
type appBackend struct {
	b           *backend
	g           *Globals
	cfg         *config.Config
	searchAttrs bool
}

// Memo keys of thread workflows that the app-server lists threads by.
const (
	memoTitle      = "title"
	memoCwd        = "cwd"
	memoModel      = "model"
	memoProvider   = "provider"
	memoCreatedAt  = "created_at"
	memoForkedFrom = "forked_from"
)

// resolve builds a thread's config from the server's configuration and a
// client's settings.
func (a *appBackend) resolve(s appserver.ThreadSettings) (workflows.ThreadConfig, *config.Config, error) {
	var extra []string
	set := func(k, v string) {
		if v != "" {
			extra = append(extra, fmt.Sprintf("%s=%q", k, v))
		}
	}
	keys := make([]string, 0, len(s.Config))
	for k := range s.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		lit, err := tomlLiteral(s.Config[k])
		if err != nil {
			return workflows.ThreadConfig{}, nil, &appserver.SettingsError{Err: fmt.Errorf("config.%s: %v", k, err)}
		}
		extra = append(extra, k+"="+lit)
	}
	set("model", s.Model)
	set("model_provider", s.ModelProvider)
	set("approval_policy", s.ApprovalPolicy)
	set("sandbox_mode", s.SandboxMode)
	cfg, err := a.g.load(extra)
	if err != nil {
		return workflows.ThreadConfig{}, nil, &appserver.SettingsError{Err: err}
	}
	tc, err := threadConfig(cfg, s.Cwd)
	if err != nil {
		return workflows.ThreadConfig{}, nil, &appserver.SettingsError{Err: err}
	}
	if s.BaseInstructions != "" {
		tc.BaseInstructions = s.BaseInstructions
	}
	if s.DeveloperInstructions != "" {
		tc.DeveloperInstructions = s.DeveloperInstructions
	}
	if err := checkAPIKey(tc, a.b); err != nil {
		return workflows.ThreadConfig{}, nil, &appserver.SettingsError{Err: err}
	}
	tc.SearchAttributes = a.searchAttrs
	if h, err := harness.Lookup(tc.Harness); err == nil {
		for _, own := range h.Tools() {
			for i, d := range s.DynamicTools {
				if d.Name == own.Name {
					return workflows.ThreadConfig{}, nil, &appserver.SettingsError{Err: fmt.Errorf(
						"dynamicTools[%d].name %q is a tool of the %s harness; pick another name", i, d.Name, tc.Harness)}
				}
			}
		}
	}
	tc.DynamicTools = s.DynamicTools
	return tc, cfg, nil
}

func (a *appBackend) NewThread(ctx context.Context, s appserver.ThreadSettings) (appserver.ThreadInfo, error) {
	tc, _, err := a.resolve(s)
	if err != nil {
		return appserver.ThreadInfo{}, err
	}
	return a.startThread(ctx, tc, nil, "", "")
}

// startThread starts a thread workflow with no turn; state, when set,
// carries a forked thread's history.
func (a *appBackend) startThread(ctx context.Context, tc workflows.ThreadConfig, state *workflows.ThreadState, forkedFrom, preview string) (appserver.ThreadInfo, error) {
	if err := workflows.CheckThreadConfig(tc); err != nil {
		return appserver.ThreadInfo{}, err
	}
	id := newThreadID()
	now := time.Now()
	summary := "thread (app-server)"
	memo := map[string]any{memoTitle: preview, memoCwd: tc.Cwd, memoModel: tc.Model, memoProvider: tc.Provider.ID, memoCreatedAt: now.Unix()}
	if forkedFrom != "" {
		summary = "thread (app-server) forked from " + forkedFrom
		memo[memoForkedFrom] = forkedFrom
	}
	opts := client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                a.cfg.Temporal.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowTaskTimeout:      workflows.ThreadTaskTimeout,
		StaticSummary:            summary,
		StaticDetails:            fmt.Sprintf("model `%s` · provider `%s` · cwd `%s`", tc.Model, tc.Provider.ID, tc.Cwd),
		Memo:                     memo,
	}
	if tc.SearchAttributes {
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(
			workflows.SAModel.ValueSet(tc.Model), workflows.SACwd.ValueSet(tc.Cwd), workflows.SALastActivity.ValueSet(now.UTC()))
	}
	if _, err := a.b.client.ExecuteWorkflow(ctx, opts, workflows.ThreadWorkflow, workflows.ThreadInput{ThreadID: id, Config: tc, State: state}); err != nil {
		return appserver.ThreadInfo{}, fmt.Errorf("starting thread: %w", err)
	}
	return appserver.ThreadInfo{ID: id, Config: tc, CreatedAt: now, UpdatedAt: now, ForkedFrom: forkedFrom, Preview: preview,
		InstructionSources: a.instructionSources(tc)}, nil
}

// ForkThread starts a thread whose transcript is the source's (the
// transcript store is content-addressed, so both share it safely). Tool
// outputs the source's model has not read yet stay with the source.
func (a *appBackend) ForkThread(ctx context.Context, sourceID string, s appserver.ThreadSettings) (appserver.ThreadInfo, error) {
	src, err := a.Thread(ctx, sourceID)
	if err != nil {
		return appserver.ThreadInfo{}, err
	}
	tc := src.View.Config
	if s.ModelProvider != "" || len(s.Config) > 0 {
		if s.Cwd == "" {
			s.Cwd = tc.Cwd
		}
		if tc, _, err = a.resolve(s); err != nil {
			return appserver.ThreadInfo{}, err
		}
	} else {
		if s.Model != "" {
			tc.Model = s.Model
		}
		if s.Cwd != "" {
			if st, err := os.Stat(s.Cwd); err != nil || !st.IsDir() {
				return appserver.ThreadInfo{}, &appserver.SettingsError{Err: fmt.Errorf("working directory %s does not exist", s.Cwd)}
			}
			tc.Cwd = s.Cwd
		}
		if s.ApprovalPolicy != "" {
			tc.ApprovalPolicy = s.ApprovalPolicy
		}
		if s.SandboxMode != "" {
			tc.SandboxMode = s.SandboxMode
		}
		if s.BaseInstructions != "" {
			tc.BaseInstructions = s.BaseInstructions
		}
		if s.DeveloperInstructions != "" {
			tc.DeveloperInstructions = s.DeveloperInstructions
		}
	}
	state := &workflows.ThreadState{Config: tc, Transcript: src.View.Transcript, NextTurn: 1}
	return a.startThread(ctx, tc, state, sourceID, src.Preview)
}

func (a *appBackend) Models(context.Context) ([]appserver.ModelInfo, error) {
	prov, err := a.cfg.Provider(a.cfg.ModelProvider)
	if err != nil {
		return nil, err
	}
	def := a.cfg.Model
	if def == "" {
		def = defaultModel(a.cfg.ModelProvider)
	}
	models := []appserver.ModelInfo{{ID: def, DisplayName: def, Provider: orDefault(prov.Name, a.cfg.ModelProvider), IsDefault: true}}
	if d := defaultModel(a.cfg.ModelProvider); d != def {
		models = append(models, appserver.ModelInfo{ID: d, DisplayName: d, Provider: orDefault(prov.Name, a.cfg.ModelProvider)})
	}
	return models, nil
}

func (a *appBackend) Config(context.Context) (map[string]any, error) {
	c := a.cfg
	out := map[string]any{
		"model_provider":  c.ModelProvider,
		"approval_policy": orDefault(c.ApprovalPolicy, config.ApprovalOnRequest),
		"sandbox_mode":    orDefault(c.SandboxMode, config.SandboxWorkspaceWrite),
		"model":           orDefault(c.Model, defaultModel(c.ModelProvider)),
		"harness":         orDefault(c.Harness, "codex"),
		"max_steps":       c.MaxSteps,
	}
	if c.TurnTimeout.Duration > 0 {
		out["turn_timeout"] = c.TurnTimeout.Duration.String()
	}
	return out, nil
}

func (a *appBackend) Thread(ctx context.Context, id string) (appserver.ThreadInfo, error) {
	d, err := a.b.client.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return appserver.ThreadInfo{}, fmt.Errorf("%w: %s", workflows.ErrThreadNotFound, id)
	}
	if err != nil {
		return appserver.ThreadInfo{}, err
	}
	ex := d.GetWorkflowExecutionInfo()
	if ex.GetType().GetName() != "ThreadWorkflow" {
		return appserver.ThreadInfo{}, fmt.Errorf("%w: %s", workflows.ErrThreadNotFound, id)
	}
	v, err := workflows.GetThread(ctx, a.b.client, id)
	if err != nil {
		return appserver.ThreadInfo{}, err
	}
	info := a.summary(ctx, ex.GetExecution().GetWorkflowId(), ex.GetStartTime().AsTime(), ex.GetMemo(), ex.GetSearchAttributes(), len(v.Turns) > 0 || v.RunningTurn != "")
	info.Config = v.Config
	info.View = &v
	if v.Name != "" {
		info.Name = v.Name
	}
	info.Archived = ex.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	return info, nil
}

// summary reads what a thread's listing shows from its memo; the preview
// of a thread started without a prompt (app-server threads) is its first
// turn's prompt.
func (a *appBackend) summary(ctx context.Context, id string, runStart time.Time, memo *commonpb.Memo, sa *commonpb.SearchAttributes, hasTurns bool) appserver.ThreadInfo {
	info := appserver.ThreadInfo{ID: id, CreatedAt: runStart, UpdatedAt: runStart}
	fields := memo.GetFields()
	str := func(k string) string {
		var s string
		if p, ok := fields[k]; ok {
			_ = converter.GetDefaultDataConverter().FromPayload(p, &s)
		}
		return s
	}
	info.Preview = str(memoTitle)
	info.ForkedFrom = str(memoForkedFrom)
	info.Name = str(workflows.MemoName)
	info.Config.Cwd = str(memoCwd)
	info.Config.Model = str(memoModel)
	info.Config.Provider.ID = str(memoProvider)
	if p, ok := fields[memoCreatedAt]; ok {
		var sec int64
		if converter.GetDefaultDataConverter().FromPayload(p, &sec) == nil && sec > 0 {
			info.CreatedAt = time.Unix(sec, 0)
		}
	} else if u, err := uuid.Parse(id); err == nil && u.Version() == 7 {
		sec, nsec := u.Time().UnixTime()
		info.CreatedAt = time.Unix(sec, nsec)
	}
	if p, ok := sa.GetIndexedFields()[workflows.SALastActivity.GetName()]; ok {
		var t time.Time
		if converter.GetDefaultDataConverter().FromPayload(p, &t) == nil && !t.IsZero() {
			info.UpdatedAt = t
		}
	}
	if info.Preview == "" && hasTurns {
		if prompt, err := a.turnPrompt(ctx, workflows.TurnWorkflowID(id, 1)); err == nil {
			info.Preview = oneLinePreview(prompt)
		}
	}
	return info
}

func oneLinePreview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// threadListQuery selects one execution per thread: the current run.
const threadListQuery = "WorkflowType = 'ThreadWorkflow' AND ExecutionStatus != 'ContinuedAsNew'"

func (a *appBackend) ListThreads(ctx context.Context, q appserver.ListQuery) (appserver.ThreadPage, error) {
	var token []byte
	if q.Cursor != "" {
		var err error
		if token, err = base64.RawURLEncoding.DecodeString(q.Cursor); err != nil {
			return appserver.ThreadPage{}, fmt.Errorf("invalid cursor: %w", err)
		}
	}
	query := threadListQuery + " AND ExecutionStatus != 'Completed'"
	if q.Archived {
		query = "WorkflowType = 'ThreadWorkflow' AND ExecutionStatus = 'Completed'"
	}
	resp, err := a.b.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: a.cfg.Temporal.Namespace, PageSize: int32(q.Limit), NextPageToken: token, Query: query,
	})
	if err != nil {
		if token != nil {
			return appserver.ThreadPage{}, fmt.Errorf("invalid cursor: %w", err)
		}
		return appserver.ThreadPage{}, err
	}
	var page appserver.ThreadPage
	for _, ex := range resp.GetExecutions() {
		if q.Archived && !a.latestRun(ctx, ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId()) {
			continue // archived once, brought back (or archived again) since
		}
		// Whether a thread has turns is not in the listing; a thread
		// with no turn has no first prompt to read, which costs one
		// failed lookup.
		page.Threads = append(page.Threads, a.summary(ctx, ex.GetExecution().GetWorkflowId(), ex.GetStartTime().AsTime(),
			ex.GetMemo(), ex.GetSearchAttributes(), true))
	}
	if len(resp.GetNextPageToken()) > 0 {
		page.NextCursor = base64.RawURLEncoding.EncodeToString(resp.GetNextPageToken())
	}
	return page, nil
}

func (a *appBackend) StartTurn(ctx context.Context, threadID string, req workflows.StartTurnRequest) (workflows.StartTurnResponse, error) {
	if req.Cwd != "" {
		if st, err := os.Stat(req.Cwd); err != nil || !st.IsDir() {
			return workflows.StartTurnResponse{}, &appserver.SettingsError{Err: fmt.Errorf("working directory %s does not exist", req.Cwd)}
		}
	}
	return workflows.StartTurn(ctx, a.b.client, threadID, req)
}

// turnPrompt reads the prompt a turn started with from the first event of
// its current run (continue-as-new carries the prompt along).
func (a *appBackend) turnPrompt(ctx context.Context, turnID string) (string, error) {
	resp, err := a.b.client.WorkflowService().GetWorkflowExecutionHistory(ctx, &workflowservice.GetWorkflowExecutionHistoryRequest{
		Namespace:       a.cfg.Temporal.Namespace,
		Execution:       &commonpb.WorkflowExecution{WorkflowId: turnID},
		MaximumPageSize: 1,
	})
	if err != nil {
		return "", err
	}
	evs := resp.GetHistory().GetEvents()
	if len(evs) == 0 {
		return "", fmt.Errorf("turn %s has no history", turnID)
	}
	input := evs[0].GetWorkflowExecutionStartedEventAttributes().GetInput()
	var in workflows.TurnInput
	if err := converter.GetDefaultDataConverter().FromPayloads(input, &in); err != nil {
		return "", fmt.Errorf("reading turn %s's input: %w", turnID, err)
	}
	return in.Prompt, nil
}

func (a *appBackend) TurnLog(ctx context.Context, turnID string) (appserver.TurnLog, error) {
	var log appserver.TurnLog
	prompt, err := a.turnPrompt(ctx, turnID)
	if err != nil {
		return log, err
	}
	log.Prompt = prompt
	after := 0
	for {
		val, err := a.b.client.QueryWorkflow(ctx, turnID, "", workflows.QueryEvents, workflows.EventsRequest{After: after, Limit: 500})
		if err != nil {
			return log, fmt.Errorf("reading the events of %s: %w", turnID, err)
		}
		var p workflows.EventsPage
		if err := val.Get(&p); err != nil {
			return log, err
		}
		log.Events = append(log.Events, p.Events...)
		log.Last, log.Done = p.Last, p.Done
		if len(p.Events) == 0 {
			return log, nil
		}
		after = p.Events[len(p.Events)-1].Seq
		if after >= p.Last {
			return log, nil
		}
	}
}

func (a *appBackend) Follow(ctx context.Context, turnID string, after int, fn func(workflows.Event)) (*workflows.TurnResult, error) {
	return workflows.FollowTurnResult(ctx, a.b.client, turnID, after, fn)
}

func (a *appBackend) Outcome(ctx context.Context, turnID string) (workflows.TurnResult, error) {
	return workflows.TurnOutcome(ctx, a.b.client, turnID)
}

func (a *appBackend) Interrupt(ctx context.Context, threadID string) error {
	return workflows.Interrupt(ctx, a.b.client, threadID)
}

// tomlLiteral writes a JSON value (the protocol's `config` values) as a
// TOML literal for a config override.
func tomlLiteral(v any) (string, error) {
	switch x := v.(type) {
	case string:
		b, _ := json.Marshal(x) // JSON string escapes are valid TOML escapes
		return string(b), nil
	case bool, float64, json.Number:
		return fmt.Sprint(x), nil
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, err := tomlLiteral(e)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(x))
		for _, k := range keys {
			s, err := tomlLiteral(x[k])
			if err != nil {
				return "", err
			}
			kb, _ := json.Marshal(k)
			parts = append(parts, string(kb)+" = "+s)
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	case nil:
		return "", errors.New("null is not a config value")
	}
	return "", fmt.Errorf("unsupported value %v", v)
}

// Exec runs command/exec's command in this process, its output captured.
// The sandbox mode is not enforced here yet: like the commands of turns,
// it will be once the sandbox helper runs commands.
func (a *appBackend) Exec(ctx context.Context, r appserver.ExecRequest) (appserver.ExecResult, error) {
	if st, err := os.Stat(r.Cwd); err != nil || !st.IsDir() {
		return appserver.ExecResult{}, &appserver.SettingsError{Err: fmt.Errorf("working directory %s does not exist", r.Cwd)}
	}
	runCtx := ctx
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	cmd := exec.Command(r.Command[0], r.Command[1:]...)
	cmd.Dir = r.Cwd
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := r.Env[k]; !over {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range r.Env {
		if v != nil {
			cmd.Env = append(cmd.Env, k+"="+*v)
		}
	}
	stdout, stderr := &cappedBuffer{max: r.OutputCap}, &cappedBuffer{max: r.OutputCap}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return appserver.ExecResult{ExitCode: 127, Stderr: err.Error()}, nil
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timedOut := false
	select {
	case <-done:
	case <-runCtx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		timedOut = ctx.Err() == nil
	}
	res := appserver.ExecResult{ExitCode: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode = 128 + int(ws.Signal())
	}
	if timedOut {
		res.ExitCode = 124
		res.Stderr += fmt.Sprintf("\n[command timed out after %s and was killed]", r.Timeout)
	}
	return res, nil
}

// cappedBuffer keeps the first max bytes written (all when max is 0).
type cappedBuffer struct {
	max int
	buf bytes.Buffer
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if c.max > 0 {
		if room := c.max - c.buf.Len(); room < len(p) {
			p = p[:max(room, 0)]
		}
	}
	c.buf.Write(p)
	return n, nil
}

func (c *cappedBuffer) String() string { return c.buf.String() }

// latestRun tells whether runID is a thread's latest run.
func (a *appBackend) latestRun(ctx context.Context, id, runID string) bool {
	d, err := a.b.client.DescribeWorkflowExecution(ctx, id, "")
	return err == nil && d.GetWorkflowExecutionInfo().GetExecution().GetRunId() == runID
}

// Live reads a turn's running commands' output and its model calls'
// streamed text from their heartbeats.
func (a *appBackend) Live(turnID string) appserver.LiveReader {
	return workflows.NewLiveOutput(a.b.client, turnID)
}

// instructionSources are the instructions files a turn of tc would read,
// found here: the answer to thread/start comes before any turn runs on
// the workspace host, and an app-server runs on that host as a rule.
func (a *appBackend) instructionSources(tc workflows.ThreadConfig) []string {
	h, err := harness.Lookup(tc.Harness)
	if err != nil {
		return nil
	}
	home, _ := os.UserHomeDir()
	docs := activities.ReadProjectDocs(tc.Cwd, home, a.cfg.Home(), activities.DocsRequest{
		Files: harness.ProjectDocFiles(h), Fallback: tc.ProjectDocFallbacks, MaxBytes: tc.ProjectDocMaxBytes})
	return docs.Docs.Sources()
}
