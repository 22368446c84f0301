package config

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/harness/codex"
	"github.com/interpreter-dev/interpreter/sandbox"
	"github.com/interpreter-dev/interpreter/workflows"
)

// ThreadConfig is the configuration's settings for a thread that works in
// cd (empty: the current directory); an error says which setting is wrong.
func (cfg *Config) ThreadConfig(cd string) (workflows.ThreadConfig, error) {
	prov, err := cfg.Provider(cfg.ModelProvider)
	if err != nil {
		return workflows.ThreadConfig{}, err
	}
	model := cfg.Model
	if model == "" {
		model = DefaultModel(cfg.ModelProvider)
	}
	if cd == "" {
		cd = "."
	}
	cwd, err := filepath.Abs(cd)
	if err != nil {
		return workflows.ThreadConfig{}, fmt.Errorf("bad --cd: %v", err)
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return workflows.ThreadConfig{}, fmt.Errorf("working directory %s does not exist", cwd)
	}
	// The harness is settled before anything is sent: an explicit one must
	// fit the provider's wire API; without one, the model family decides.
	route, err := harness.Choose(cfg.Harness, prov.WireAPI, cfg.ModelProvider, prov.BaseURL, model)
	if err != nil {
		return workflows.ThreadConfig{}, err
	}
	harnessName := route.Harness.Info().Name
	if harnessName == codex.Name && !cfg.UnifiedExec() {
		harnessName = codex.ShellName
	}
	if err := cfg.Reasoning().CheckModel(model); err != nil {
		return workflows.ThreadConfig{}, err
	}
	mem, err := cfg.MemorySettings()
	if err != nil {
		return workflows.ThreadConfig{}, err
	}
	compactPrompt := cfg.CompactPrompt
	if cfg.CompactPromptFile != "" {
		b, err := os.ReadFile(cfg.CompactPromptFile)
		if err != nil {
			return workflows.ThreadConfig{}, fmt.Errorf("reading experimental_compact_prompt_file: %v", err)
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
		HostWait:         cfg.Temporal.HostWait.Duration,
		CommandHeartbeat: cfg.Temporal.CommandHeartbeat.Duration,
		StallTimeout:     max(cfg.StallTimeout.Duration, 0), DynamicToolTimeout: cfg.DynamicToolTimeout.Duration,
		ModelCalls:      ModelCalls(cfg.Temporal.LocalModelCalls),
		Commands:        Commands(cfg.Temporal.LocalCommands),
		NetworkAccess:   cfg.WorkspaceWrite.NetworkAccess,
		ApprovalTimeout: cfg.Approvals.Timeout.Duration, ApprovalDefault: cfg.Approvals.DefaultDecision,
		NotifyCommand: cfg.Approvals.NotifyCommand, WebhookURL: cfg.Approvals.WebhookURL,
		ContextWindow: cfg.ModelContextWindow, AutoCompactTokenLimit: cfg.ModelAutoCompactTokenLimit,
		CompactPrompt: compactPrompt, Memories: mem.Enabled, MemoryIdle: mem.IdleAfter,
		MCPServers: cfg.EnabledMCPServers(),
	}
	env := cfg.ShellEnvironment
	if env.IgnoreDefaultExcludes || len(env.Exclude)+len(env.IncludeOnly)+len(env.Allow) > 0 {
		tc.EnvPolicy = &sandbox.EnvPolicy{IgnoreDefaultExcludes: env.IgnoreDefaultExcludes,
			Exclude: env.Exclude, IncludeOnly: env.IncludeOnly, Allow: env.Allow}
	}
	if err := AddWritableRoots(&tc, cfg.WorkspaceWrite.WritableRoots); err != nil {
		return workflows.ThreadConfig{}, err
	}
	tc.Goals = cfg.GoalsConfig()
	tc.BackgroundTerminals = cfg.BackgroundTerminalsConfig()
	tc.StoreRetries = cfg.Store.MaxRetries
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

// AddWritableRoots checks and adds extra writable roots: each must be an
// existing directory (a typo must not silently change the sandbox).
func AddWritableRoots(tc *workflows.ThreadConfig, dirs []string) error {
	for _, d := range dirs {
		abs, err := filepath.Abs(ExpandHome(d))
		if err != nil {
			return fmt.Errorf("writable root %q: %v", d, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return fmt.Errorf("writable root %s does not exist or is not a directory (sandbox_workspace_write.writable_roots / --add-dir)", abs)
		}
		tc.WritableRoots = append(tc.WritableRoots, abs)
	}
	return nil
}

// DefaultModel is the model of a provider when none is configured.
func DefaultModel(provider string) string {
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

// ModelCalls maps temporal.local_model_calls to how turns run model calls:
// unset, in the workflow task for a short budget, then handed off; false,
// always as regular activities; true, always as local activities.
func ModelCalls(local *bool) string {
	switch {
	case local == nil:
		return workflows.ModelCallsAuto
	case *local:
		return workflows.ModelCallsLocal
	}
	return workflows.ModelCallsActivity
}

// Commands maps temporal.local_commands to how turns run shell commands:
// unset or true, locally first; false, always as regular activities. A
// command run locally shows no output until it is handed off after a
// quarter second (or ends): a client streaming its output sees that
// quarter second's lines in one piece, as the hand-off's first heartbeat.
func Commands(local *bool) string {
	if local != nil && !*local {
		return workflows.CommandsActivity
	}
	return workflows.CommandsLocal
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

// idleTimeoutMs is stream_idle_timeout_ms as the provider spec carries it
// (0: the default).
func idleTimeoutMs(ms *int) int64 {
	if ms == nil || *ms <= 0 {
		return 0
	}
	return int64(*ms)
}

// EnabledMCPServers are the enabled servers of the config, as threads carry them.
func (cfg *Config) EnabledMCPServers() []mcpclient.Server {
	var out []mcpclient.Server
	for _, s := range cfg.MCPServerList() {
		if s.Enabled {
			out = append(out, s.Server)
		}
	}
	return out
}

// MCPEnv are the env values of the config's servers, for this process's
// worker: threads carry only their names.
func (cfg *Config) MCPEnv() map[string]map[string]string {
	env := map[string]map[string]string{}
	for _, s := range cfg.MCPServerList() {
		if len(s.EnvValues) > 0 {
			env[s.Name] = s.EnvValues
		}
	}
	return env
}
