package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/mcpserver"
	"github.com/interpreter-dev/interpreter/workflows"
)

// McpServerCmd serves the codex and codex-reply tools over MCP on stdio.
// stdout carries the protocol only; everything else goes to stderr.
type McpServerCmd struct{}

// Run serves until stdin closes (running turns go on in their workflows)
// or a signal arrives.
func (m *McpServerCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	be := mcpBackend(ctx, g, cfg, stdio.Err)
	defer be.Close()

	out := stdio.Out
	if out == io.Writer(os.Stdout) {
		// Anything in this process that prints to os.Stdout by accident
		// lands on stderr instead of corrupting the protocol.
		os.Stdout = os.Stderr
		defer func() { os.Stdout = out.(*os.File) }()
	}
	srv := mcpserver.New(be, mcpserver.Options{Name: "interpreter", Version: Version, Log: stdio.Err})
	if err := srv.Serve(ctx, stdio.In, out); err != nil {
		return exitf(1, "mcp-server: %v", err)
	}
	return nil
}

// mcpBackend is the MCP server's backend: it connects in the background,
// and builds each codex call's thread config from the configuration.
func mcpBackend(ctx context.Context, g *Globals, cfg *config.Config, log io.Writer) *mcpserver.TemporalBackend {
	b := new(*backend) // set once connected: checkAPIKey asks how
	return mcpserver.NewTemporalBackend(ctx, mcpserver.TemporalOptions{
		TaskQueue: cfg.Temporal.TaskQueue,
		Log:       log,
		Connect: func(ctx context.Context) (mcpserver.Conn, error) {
			c, err := connect(ctx, cfg, log)
			if err != nil {
				return mcpserver.Conn{}, err
			}
			*b = c
			return mcpserver.Conn{Client: c.client, SearchAttributes: hasSearchAttributes(ctx, c, cfg.Temporal.Namespace), Close: c.Close}, nil
		},
		Resolve: func(args mcpserver.CodexArgs) (workflows.ThreadConfig, error) {
			return mcpThreadConfig(g, *b, args)
		},
	})
}

// mcpThreadConfig loads the config with the call's overrides (config
// first, then the named fields) and builds the thread's config.
func mcpThreadConfig(g *Globals, b *backend, args mcpserver.CodexArgs) (workflows.ThreadConfig, error) {
	extra := map[string]any{}
	for k, v := range args.Config {
		extra[k] = v
	}
	for k, v := range map[string]string{"model": args.Model, "approval_policy": args.ApprovalPolicy, "sandbox_mode": args.Sandbox} {
		if v != "" {
			extra[k] = v
		}
	}
	cfg, err := config.Load(config.Options{Home: g.Home, Overrides: g.Config, Strict: g.StrictConfig, Profile: g.Profile, Extra: extra})
	if err != nil {
		return workflows.ThreadConfig{}, fmt.Errorf("config: %w", err)
	}
	tc, err := threadConfig(cfg, args.Cwd)
	if err != nil {
		return workflows.ThreadConfig{}, err
	}
	if args.BaseInstructions != "" {
		tc.BaseInstructions = args.BaseInstructions
	}
	if args.DeveloperInstructions != "" {
		tc.DeveloperInstructions = args.DeveloperInstructions
	}
	if args.CompactPrompt != "" {
		tc.CompactPrompt = args.CompactPrompt
	}
	if err := checkAPIKey(tc, b); err != nil {
		return workflows.ThreadConfig{}, err
	}
	return tc, nil
}
