// Package config loads the interpreter's configuration.
//
// Settings live in $INTERPRETER_HOME/config.toml (INTERPRETER_HOME defaults
// to ~/.interpreter). The file uses the same key names as Codex's
// config.toml (model, model_provider, model_providers, approval_policy,
// sandbox_mode, profiles, mcp_servers, ...) plus interpreter-specific keys
// such as [temporal], max_steps and turn_timeout.
//
// Layers are applied in this order, later layers winning:
//
//	built-in defaults <- config.toml <- selected profile <- -c overrides <- Extra
//
// Every layer is merged as a tree of TOML tables: a table in a later layer
// is merged key by key into the same table of an earlier one, anything else
// replaces the earlier value. The merged tree is then decoded into Config,
// checked for unknown keys (an error in strict mode, recorded otherwise, see
// Config.UnknownKeys) and validated.
package config

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/interpreter-dev/interpreter/harness"
)

// FileName is the name of the configuration file inside the home directory.
const FileName = "config.toml"

// Approval policies (approval_policy).
const (
	ApprovalUntrusted = "untrusted"
	ApprovalOnFailure = "on-failure"
	ApprovalOnRequest = "on-request"
	ApprovalNever     = "never"
)

// Sandbox modes (sandbox_mode).
const (
	SandboxReadOnly         = "read-only"
	SandboxWorkspaceWrite   = "workspace-write"
	SandboxDangerFullAccess = "danger-full-access"
)

// Wire APIs a provider can speak (model_providers.<id>.wire_api).
const (
	WireResponses = "responses"
	WireChat      = "chat"
	WireMessages  = "messages"
)

// Valid values of the enumerated settings, in documentation order.
var (
	ApprovalPolicies = []string{ApprovalUntrusted, ApprovalOnFailure, ApprovalOnRequest, ApprovalNever}
	SandboxModes     = []string{SandboxReadOnly, SandboxWorkspaceWrite, SandboxDangerFullAccess}
	WireAPIs         = []string{WireResponses, WireChat, WireMessages}
)

// Config is the fully resolved configuration.
type Config struct {
	Model          string              `toml:"model"`
	ModelProvider  string              `toml:"model_provider"`
	ModelProviders map[string]Provider `toml:"model_providers"`
	ApprovalPolicy string              `toml:"approval_policy"`
	SandboxMode    string              `toml:"sandbox_mode"`
	Harness        string              `toml:"harness"`
	// HarnessGuidance adds the reliability block of the harnesses that have
	// one (kimi-cli, ...); nil means the default, on.
	HarnessGuidance *bool    `toml:"harness_guidance"`
	MaxSteps        int      `toml:"max_steps"`
	TurnTimeout     Duration `toml:"turn_timeout"`
	// StallTimeout fails a turn that logs no event for this long (waits
	// for a client's answer excepted); 0 or less disables it.
	StallTimeout Duration `toml:"stall_timeout"`
	// DynamicToolTimeout bounds the wait for a client's answer to a
	// dynamic tool call (app-server); 0 means the default (10m).
	DynamicToolTimeout Duration `toml:"dynamic_tool_timeout"`

	// Reasoning, with Codex's key names (see [harness.Reasoning]).
	ModelReasoningEffort  string `toml:"model_reasoning_effort"`
	ModelReasoningSummary string `toml:"model_reasoning_summary"`
	ModelVerbosity        string `toml:"model_verbosity"`
	// ModelSupportsReasoningSummaries overrides the guess from the
	// model's name of whether it reasons.
	ModelSupportsReasoningSummaries *bool `toml:"model_supports_reasoning_summaries"`

	// ModelSupportsImages overrides the guess from the model's name of
	// whether it takes pictures.
	ModelSupportsImages *bool `toml:"model_supports_images"`

	// Project instructions (AGENTS.md), with Codex's key names.
	// ProjectDocMaxBytes bounds the joined files (nil: 32 KiB; 0 reads
	// none); the fallback names are tried in a directory without an
	// AGENTS.md.
	ProjectDocMaxBytes          *int     `toml:"project_doc_max_bytes"`
	ProjectDocFallbackFilenames []string `toml:"project_doc_fallback_filenames"`

	// Compaction, with Codex's key names. ModelContextWindow 0 means the
	// model's known window; ModelAutoCompactTokenLimit 0 means 80% of the
	// window and a negative value turns automatic compaction off.
	ModelContextWindow         int64  `toml:"model_context_window"`
	ModelAutoCompactTokenLimit int64  `toml:"model_auto_compact_token_limit"`
	CompactPrompt              string `toml:"compact_prompt"`
	CompactPromptFile          string `toml:"experimental_compact_prompt_file"`

	// Profile is the name of the selected profile ("" for none). Profiles
	// holds every profile defined; the selected one has already been
	// applied to the other fields.
	Profile  string                    `toml:"profile"`
	Profiles map[string]map[string]any `toml:"profiles"`

	Temporal Temporal `toml:"temporal"`
	// Store is where workers keep transcripts ([store]).
	Store Store `toml:"store"`

	WorkspaceWrite   WorkspaceWrite   `toml:"sandbox_workspace_write"`
	ShellEnvironment ShellEnvironment `toml:"shell_environment_policy"`
	Approvals        Approvals        `toml:"approvals"`

	// Sections kept as raw TOML trees; their contents are not checked,
	// except mcp_servers, typed by MCPServerList.
	MCPServers map[string]map[string]any `toml:"mcp_servers"`
	Otel       map[string]any            `toml:"otel"`
	Memories   map[string]any            `toml:"memories"`

	// Skills say which skills are enabled (see [Skills]).
	Skills Skills `toml:"skills"`

	// Features holds the Codex [features] flags that mean something here;
	// the others are Codex's and ignored with a warning.
	Features Features `toml:"features"`

	// Agents bounds sub-agents (see [Agents]).
	Agents Agents `toml:"agents"`
	Goals  Goals  `toml:"goals"` // goals.go
	// BackgroundTerminals bounds exec sessions that outlive their turn.
	BackgroundTerminals BackgroundTerminals `toml:"background_terminals"` // bgterm.go

	home    string
	unknown []string
	// quiet are the unknown keys that only a front end's Extra set and
	// that are Codex's (see [Config.QuietKeys]).
	quiet map[string]bool
	opts  Options
	mcp   []MCPServer
}

// Features holds [features], with Codex's key names.
type Features struct {
	Goals *bool `toml:"goals"` // goals.go
	// ShellSnapshot runs login-shell commands (`bash -lc`) as non-login
	// ones with a snapshot of the profile; nil means on, as in Codex.
	ShellSnapshot *bool `toml:"shell_snapshot"`
	// UnifiedExec false makes the codex harness offer the older shell
	// tool (harness codex-shell) instead of exec_command / write_stdin.
	UnifiedExec *bool `toml:"unified_exec"`
	// MultiAgent offers the sub-agent tools: the codex harness's
	// (spawn_agent, send_input, wait_agent, close_agent, resume_agent),
	// claude-code's Task, kimi-cli's Agent; nil means on, as in Codex
	// 0.171.
	MultiAgent *bool `toml:"multi_agent"`
	// Memories is Codex's switch for memories (its TUI's /memories sets
	// it): true turns on memory across threads as [memories] enabled =
	// true does, unless that says false.
	Memories *bool `toml:"memories"`
	// MemoryTool comes with Memories from Codex's TUI; here a thread's
	// memory is in its instructions, so it changes nothing.
	MemoryTool *bool `toml:"memory_tool"`
	// BackgroundTerminalWakeup: a background terminal's exit starts a
	// turn; nil means on (bgterm.go).
	BackgroundTerminalWakeup *bool `toml:"background_terminal_wakeup"`
}

// Agents holds [agents], with Codex's key names (models is ours): the
// bounds of sub-agents.
type Agents struct {
	// MaxThreads bounds the open sub-agents under a root thread, its
	// whole tree counted (default 6).
	MaxThreads int `toml:"max_threads"`
	// MaxDepth bounds how deep sub-agents nest (default 1: sub-agents
	// spawn none).
	MaxDepth int `toml:"max_depth"`
	// JobMaxRuntimeSeconds bounds each turn of a sub-agent (default 1800).
	JobMaxRuntimeSeconds int `toml:"job_max_runtime_seconds"`
	// Models a sub-agent may be given besides its parent's model.
	Models []string `toml:"models"`
}

// MultiAgent tells whether the sub-agent tools are on ([features]
// multi_agent, default on; multi_agent = false turns them off).
func (c *Config) MultiAgent() bool {
	return c.Features.MultiAgent == nil || *c.Features.MultiAgent
}

// ShellSnapshots tells whether login-shell commands run with a snapshot
// of the profile ([features] shell_snapshot, default on).
func (c *Config) ShellSnapshots() bool {
	return c.Features.ShellSnapshot == nil || *c.Features.ShellSnapshot
}

// WorkspaceWrite holds [sandbox_workspace_write], as in Codex.
type WorkspaceWrite struct {
	// WritableRoots are extra directories commands may write under,
	// besides the working directory and the temp dirs. Each must exist.
	WritableRoots []string `toml:"writable_roots"`
	// NetworkAccess lets workspace-write commands use the network.
	NetworkAccess bool `toml:"network_access"`
}

// ShellEnvironment holds [shell_environment_policy]: which of the worker's
// variables commands see. Patterns are case-insensitive globs. Variables
// whose names contain KEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL
// are dropped unless ignore_default_excludes is set or allow names them.
type ShellEnvironment struct {
	IgnoreDefaultExcludes bool     `toml:"ignore_default_excludes"`
	Exclude               []string `toml:"exclude"`
	IncludeOnly           []string `toml:"include_only"`
	// Allow passes variables even though they look like secrets (ours).
	Allow []string `toml:"allow"`
}

// Approval decisions ([approvals] default_decision and `interpreter
// approve --decision`).
const (
	DecisionApprove           = "approve"
	DecisionApproveForSession = "approve_for_session"
	DecisionDeny              = "deny"
	DecisionAbort             = "abort"
)

// Decisions lists the valid approval decisions.
var Decisions = []string{DecisionApprove, DecisionApproveForSession, DecisionDeny, DecisionAbort}

// Approvals holds [approvals] (ours): how long an approval waits, what
// happens then, and how a person is told that something waits.
type Approvals struct {
	// Timeout is how long an approval waits for a decision; 0 waits for
	// as long as the turn lives.
	Timeout Duration `toml:"timeout"`
	// DefaultDecision applies when the timeout passes (default deny).
	DefaultDecision string `toml:"default_decision"`
	// NotifyCommand runs when an approval is requested, with the request
	// as JSON in its last argument.
	NotifyCommand []string `toml:"notify_command"`
	// WebhookURL receives the request as a JSON POST.
	WebhookURL string `toml:"webhook_url"`
}

// Provider describes a model provider (a [model_providers.<id>] table).
type Provider struct {
	Name    string `toml:"name"`
	BaseURL string `toml:"base_url"`
	WireAPI string `toml:"wire_api"`
	// EnvKey names the environment variable holding the API key; empty
	// means the provider needs no key.
	EnvKey             string            `toml:"env_key"`
	EnvKeyInstructions string            `toml:"env_key_instructions"`
	HTTPHeaders        map[string]string `toml:"http_headers"`
	// EnvHTTPHeaders maps header names to environment variables whose
	// values are sent (when set).
	EnvHTTPHeaders map[string]string `toml:"env_http_headers"`
	QueryParams    map[string]string `toml:"query_params"`

	// Retries of a model call, as Codex's keys say: a request that failed
	// before the answer began is tried again up to request_max_retries
	// times (default 4), an answer that broke off or sent nothing for
	// stream_idle_timeout_ms (default 300000) up to stream_max_retries
	// times (default 5). Both are capped at 100.
	RequestMaxRetries   *int `toml:"request_max_retries"`
	StreamMaxRetries    *int `toml:"stream_max_retries"`
	StreamIdleTimeoutMs *int `toml:"stream_idle_timeout_ms"`
	// Accepted for Codex compatibility.
	RequiresOpenAIAuth bool `toml:"requires_openai_auth"`
}

// Temporal holds the [temporal] section.
type Temporal struct {
	Address   string `toml:"address"`
	Namespace string `toml:"namespace"`
	TaskQueue string `toml:"task_queue"`
	// Embedded: nil means auto (start the embedded server when nothing
	// answers at Address), true forces it, false forbids it.
	Embedded      *bool  `toml:"embedded"`
	TLS           bool   `toml:"tls"`
	TLSCert       string `toml:"tls_cert"`
	TLSKey        string `toml:"tls_key"`
	TLSCA         string `toml:"tls_ca"`
	TLSServerName string `toml:"tls_server_name"`
	// APIKeyEnv names the environment variable holding a Temporal Cloud
	// API key.
	APIKeyEnv string `toml:"api_key_env"`
	// HostQueue is this workspace host's tool queue. Load fills it with
	// DefaultHostQueue when unset.
	HostQueue string `toml:"host_queue"`
	// HostWait is how long a tool call waits for a host queue no worker
	// polls before the turn fails (0: the default, 2 min).
	HostWait Duration `toml:"host_wait"`
	// CommandHeartbeat is the heartbeat timeout of a shell command, an
	// MCP tool call, a unified-exec call and a background terminal's watch
	// (0: the default, 10 min; the server cuts it to a call's own timeout).
	// A worker lost on this machine is found at once (lock files, or its
	// own restart); this bounds only a call whose machine vanished with
	// all its workers: set it shorter on a cluster.
	CommandHeartbeat Duration `toml:"command_heartbeat"`
	// LocalModelCalls chooses how model calls run. Unset (the default):
	// a call waits up to 250 ms for its answer inside the turn's workflow
	// task (a local activity); a call still streaming then is taken over
	// by a regular activity on the same worker (workflows.ModelCallsAuto).
	// true: always local, one workflow task and one activity dispatch less
	// per step, but the turn's events are published only when the call
	// returns (or the task heartbeats) and the text does not stream.
	// false: always a regular activity, with heartbeats, streamed text and
	// a labelled bar on the UI's timeline.
	LocalModelCalls *bool `toml:"local_model_calls"`
	// LocalCommands chooses how shell commands run. Unset (the default)
	// or true: a command runs first inside the turn's workflow task when
	// its worker serves the workspace host, and one still running after
	// 250 ms is handed off to a regular activity (workflows.CommandsLocal),
	// whose first heartbeat carries what it printed by then: a follower
	// sees a longer command's first output about a third of a second
	// late, and a task's quick commands (at most half a second of them)
	// when the task completes. false: always a regular activity, its
	// output streamed as it comes.
	LocalCommands *bool `toml:"local_commands"`
	// UIURL is the base URL of the Temporal Web UI, for links printed by
	// front ends (default: the dev server's http://127.0.0.1:8233 when
	// address is the default).
	UIURL string `toml:"ui_url"`
}

// Store holds the [store] section: by default each worker's transcripts
// are in $INTERPRETER_HOME/store; with URL they are in object storage all
// workers reach (s3://, gs://, azblob://, file://; or, for development, a
// blob server `interpreter store serve` at http://), the directory a cache.
type Store struct {
	URL string `toml:"url"`
	// TokenEnv names the environment variable holding the development
	// blob server's bearer token (http:// URLs only).
	TokenEnv string `toml:"token_env"`
	// MaxRetries is how often a step the store failed is tried again
	// (nil: the default, about 2.5 minutes of retries).
	MaxRetries *int `toml:"max_retries"`
}

// Home returns the interpreter home directory the configuration was loaded
// from.
func (c *Config) Home() string { return c.home }

// UnknownKeys returns the dotted names of keys that matched no setting,
// sorted. Load fails on them in strict mode; otherwise they are ignored and
// reported here so front ends can warn.
func (c *Config) UnknownKeys() []string {
	return append([]string(nil), c.unknown...)
}

func (c *Config) validate() error {
	if err := checkEnum("approval_policy", c.ApprovalPolicy, ApprovalPolicies); err != nil {
		return err
	}
	if err := checkEnum("sandbox_mode", c.SandboxMode, SandboxModes); err != nil {
		return err
	}
	for _, id := range sortedKeys(c.ModelProviders) {
		key := "model_providers." + quoteKeyPart(id) + ".wire_api"
		if err := checkEnum(key, c.ModelProviders[id].WireAPI, WireAPIs); err != nil {
			return err
		}
	}
	if c.Approvals.DefaultDecision != "" {
		if err := checkEnum("approvals.default_decision", c.Approvals.DefaultDecision, Decisions); err != nil {
			return err
		}
	}
	if c.Approvals.Timeout.Duration < 0 {
		return fmt.Errorf("invalid approvals.timeout %s: must not be negative", c.Approvals.Timeout)
	}
	for _, r := range c.WorkspaceWrite.WritableRoots {
		if !filepath.IsAbs(expandHome(r)) {
			return fmt.Errorf("invalid sandbox_workspace_write.writable_roots entry %q: must be an absolute path", r)
		}
	}
	if err := c.Reasoning().Validate(); err != nil {
		return fmt.Errorf("invalid %w", err)
	}
	if c.ProjectDocMaxBytes != nil && *c.ProjectDocMaxBytes < 0 {
		return fmt.Errorf("invalid project_doc_max_bytes %d: must not be negative", *c.ProjectDocMaxBytes)
	}
	if c.MaxSteps < 0 {
		return fmt.Errorf("invalid max_steps %d: must not be negative", c.MaxSteps)
	}
	if c.ModelContextWindow < 0 {
		return fmt.Errorf("invalid model_context_window %d: must not be negative", c.ModelContextWindow)
	}
	if hb := c.Temporal.CommandHeartbeat.Duration; hb != 0 && hb < time.Second {
		return fmt.Errorf("invalid temporal.command_heartbeat %s: must be at least 1s", c.Temporal.CommandHeartbeat)
	}
	if c.Temporal.HostWait.Duration < 0 {
		return fmt.Errorf("invalid temporal.host_wait %s: must not be negative", c.Temporal.HostWait)
	}
	if c.TurnTimeout.Duration < 0 {
		return fmt.Errorf("invalid turn_timeout %s: must not be negative", c.TurnTimeout)
	}
	if c.DynamicToolTimeout.Duration < 0 {
		return fmt.Errorf("invalid dynamic_tool_timeout %s: must not be negative", c.DynamicToolTimeout)
	}
	if _, err := c.Provider(c.ModelProvider); err != nil {
		return fmt.Errorf("model_provider: %w", err)
	}
	return c.Skills.validate()
}

func checkEnum(key, value string, valid []string) error {
	for _, v := range valid {
		if value == v {
			return nil
		}
	}
	return fmt.Errorf("invalid %s %q: valid values are %s", key, value, strings.Join(valid, ", "))
}

// Duration is a time.Duration read from TOML either as a Go duration string
// ("90s", "30m", "1h30m") or as a number of seconds (90, 1.5).
type Duration struct {
	time.Duration
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if v, err := time.ParseDuration(s); err == nil {
		d.Duration = v
		return nil
	}
	digits := strings.ReplaceAll(s, "_", "")
	if n, err := strconv.ParseInt(digits, 0, 64); err == nil {
		if n > math.MaxInt64/int64(time.Second) || n < math.MinInt64/int64(time.Second) {
			return fmt.Errorf("duration %q out of range", s)
		}
		d.Duration = time.Duration(n) * time.Second
		return nil
	}
	if f, err := strconv.ParseFloat(digits, 64); err == nil && !math.IsNaN(f) && math.Abs(f) < float64(math.MaxInt64)/float64(time.Second) {
		d.Duration = time.Duration(f * float64(time.Second))
		return nil
	}
	return fmt.Errorf("invalid duration %q: want a duration such as \"90s\" or \"30m\", or a number of seconds", s)
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(d.Duration.String()), nil
}

// Reasoning is the reasoning settings a thread asks of its model.
func (c *Config) Reasoning() harness.Reasoning {
	return harness.Reasoning{Effort: c.ModelReasoningEffort, Summary: c.ModelReasoningSummary,
		Verbosity: c.ModelVerbosity, Supported: c.ModelSupportsReasoningSummaries}
}

// UnifiedExec tells whether the codex harness offers exec_command and
// write_stdin (the default) rather than shell.
func (c Config) UnifiedExec() bool {
	return c.Features.UnifiedExec == nil || *c.Features.UnifiedExec
}
