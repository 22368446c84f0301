package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/appserver"
	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/sandbox"
	"github.com/interpreter-dev/interpreter/workflows"
)

// AppCmd serves Codex's app-server protocol on stdin/stdout, or over
// WebSocket (listen.go).
type AppCmd struct {
	Listen       string `default:"stdio://" placeholder:"ADDR" help:"Transport: stdio:// (one JSON message per line on stdin/stdout), ws://HOST:PORT or unix://PATH (WebSocket, many clients; codex --remote ADDR)."`
	AuthTokenEnv string `name:"auth-token-env" placeholder:"VAR" help:"Require the bearer token in environment variable VAR on every WebSocket upgrade (needed to bind a non-loopback address)."`
	Transcript   string `placeholder:"FILE" help:"Append every message in and out of every connection to FILE, one JSON line each (debugging; it holds prompts and output)."`
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
	opts := appOptions(cfg, stdio.Err)
	if a.Transcript != "" {
		f, err := os.OpenFile(a.Transcript, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return exitf(2, "app-server: --transcript: %v", err)
		}
		defer f.Close()
		opts.Transcript = f
	}
	srv := appserver.New(appBackend(ctx, b, g, cfg), opts)
	return serveApp(ctx, srv, ep, stdio)
}

// appOptions are the app-server's options from the configuration: what
// account/read and mcpServerStatus/list report.
func appOptions(cfg *config.Config, log io.Writer) appserver.Options {
	o := appserver.Options{Version: Version, Home: cfg.Home(), Log: log}
	if prov, err := cfg.Provider(cfg.ModelProvider); err == nil {
		o.APIKey = prov.EnvKey != ""
	}
	for _, m := range cfg.MCPServerList() {
		o.MCPServers = append(o.MCPServers, appserver.MCPServerInfo{Name: m.Name, Disabled: !m.Enabled, BearerToken: m.BearerTokenEnvVar != ""})
	}
	return o
}

// appBackend is the app-server's backend over b's Temporal client.
func appBackend(ctx context.Context, b *backend, g *Globals, cfg *config.Config) *appserver.TemporalBackend {
	return &appserver.TemporalBackend{Client: b.client, TaskQueue: cfg.Temporal.TaskQueue, Namespace: cfg.Temporal.Namespace,
		SearchAttributes: hasSearchAttributes(ctx, b, cfg.Temporal.Namespace), Settings: &appSettings{b: b, g: g, cfg: cfg},
		Terminals: sandbox.Terminals{}, Blobs: threadBlobs(cfg)}
}

// appSettings answers the app-server from the configuration.
type appSettings struct {
	b   *backend
	g   *Globals
	cfg *config.Config
}

// Resolve builds a thread's config from the server's configuration and a
// client's settings.
func (a *appSettings) Resolve(s appserver.ThreadSettings) (workflows.ThreadConfig, error) {
	cfg, err := a.loadThread(s)
	if err != nil {
		return workflows.ThreadConfig{}, &appserver.SettingsError{Err: err}
	}
	tc, err := threadConfig(cfg, s.Cwd)
	if err != nil {
		return workflows.ThreadConfig{}, &appserver.SettingsError{Err: err}
	}
	if s.BaseInstructions != "" {
		tc.BaseInstructions = s.BaseInstructions
	}
	if s.DeveloperInstructions != "" {
		tc.DeveloperInstructions = s.DeveloperInstructions
	}
	if err := checkAPIKey(tc, a.b); err != nil {
		return workflows.ThreadConfig{}, &appserver.SettingsError{Err: err}
	}
	if h, err := harness.Lookup(tc.Harness); err == nil {
		for _, own := range h.Tools() {
			for i, d := range s.DynamicTools {
				if d.Name == own.Name {
					return workflows.ThreadConfig{}, &appserver.SettingsError{Err: fmt.Errorf(
						"dynamicTools[%d].name %q is a tool of the %s harness; pick another name", i, d.Name, tc.Harness)}
				}
			}
		}
	}
	tc.DynamicTools = s.DynamicTools
	return tc, nil
}

func (a *appSettings) Models() ([]appserver.ModelInfo, error) {
	c := a.current()
	prov, err := c.Provider(c.ModelProvider)
	if err != nil {
		return nil, err
	}
	def := c.Model
	if def == "" {
		def = config.DefaultModel(c.ModelProvider)
	}
	models := []appserver.ModelInfo{{ID: def, DisplayName: def, Provider: orDefault(prov.Name, c.ModelProvider), IsDefault: true}}
	if d := config.DefaultModel(c.ModelProvider); d != def {
		models = append(models, appserver.ModelInfo{ID: d, DisplayName: d, Provider: orDefault(prov.Name, c.ModelProvider)})
	}
	return models, nil
}

func (a *appSettings) Config() (map[string]any, error) {
	c := a.current()
	out := map[string]any{
		"model_provider":  c.ModelProvider,
		"approval_policy": orDefault(c.ApprovalPolicy, config.ApprovalOnRequest),
		"sandbox_mode":    orDefault(c.SandboxMode, config.SandboxWorkspaceWrite),
		"model":           orDefault(c.Model, config.DefaultModel(c.ModelProvider)),
		"harness":         orDefault(c.Harness, "codex"),
		"max_steps":       c.MaxSteps,
	}
	if c.TurnTimeout.Duration > 0 {
		out["turn_timeout"] = c.TurnTimeout.Duration.String()
	}
	return out, nil
}

// InstructionSources are the instructions files a turn of tc would read,
// found here: the answer to thread/start comes before any turn runs on
// the workspace host, and an app-server runs on that host as a rule.
func (a *appSettings) InstructionSources(tc workflows.ThreadConfig) []string {
	h, err := harness.Lookup(tc.Harness)
	if err != nil {
		return nil
	}
	home, _ := os.UserHomeDir()
	docs := activities.ReadProjectDocs(tc.Cwd, home, a.cfg.Home(), activities.DocsRequest{
		Files: harness.ProjectDocFiles(h), Fallback: tc.ProjectDocFallbacks, MaxBytes: tc.ProjectDocMaxBytes})
	return docs.Docs.Sources()
}
