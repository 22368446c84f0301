package cli

import (
	"context"
	"io"
	"path/filepath"
	"time"

	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/harness"
	_ "github.com/interpreter-dev/interpreter/harness/all" // registers every harness
)

// HarnessCmd inspects the harnesses.
type HarnessCmd struct {
	List HarnessListCmd `cmd:"" help:"List the harnesses: name, wire APIs, tools (and the core tool each maps onto)."`
	Show HarnessShowCmd `cmd:"" help:"Show a harness's system prompt and tool schemas exactly as they would be sent."`
}

// HarnessListCmd lists the harnesses.
type HarnessListCmd struct{}

// Run prints one line per harness.
func (HarnessListCmd) Run(stdio Stdio) error {
	_, err := io.WriteString(stdio.Out, harness.ListText())
	return err
}

// HarnessShowCmd renders one harness's request.
type HarnessShowCmd struct {
	Name  string `arg:"" help:"Harness name (see 'interpreter harness list')."`
	Wire  string `help:"Wire API: responses, chat or messages (default: the harness's first)." placeholder:"W"`
	Model string `short:"m" help:"Model the request is for (default: from config)."`
	Cd    string `short:"C" name:"cd" help:"Working directory shown in the prompt." placeholder:"DIR"`
	JSON  bool   `name:"json" help:"Print the whole request body of a first step, with a placeholder prompt."`
}

// Run prints the system prompt, the tool schemas and the other request
// fields, as the provider would receive them.
func (c *HarnessShowCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	h, err := harness.Lookup(c.Name)
	if err != nil {
		return exitf(2, "%v", err)
	}
	wire := c.Wire
	if wire == "" {
		wire = h.Info().Wires[0]
	}
	if _, err := harness.Resolve(wire, c.Name); err != nil {
		return exitf(2, "%v", err)
	}
	env := harness.Env{Shell: "bash", Date: time.Now().Format("2006-01-02"), Model: c.Model}
	cfg, err := g.load(nil)
	if err == nil {
		env.SandboxMode, env.ApprovalPolicy = cfg.SandboxMode, cfg.ApprovalPolicy
		env.NoGuidance = cfg.HarnessGuidance != nil && !*cfg.HarnessGuidance
		if env.Model == "" {
			env.Model = cfg.Model
			if env.Model == "" {
				env.Model = config.DefaultModel(cfg.ModelProvider)
			}
		}
	}
	cd := c.Cd
	if cd == "" {
		cd = "."
	}
	if env.Cwd, err = filepath.Abs(cd); err != nil {
		return exitf(2, "bad --cd: %v", err)
	}
	if cfg != nil {
		if found, err := findSkills(ctx, cfg, env.Cwd, skills.KindMain); err == nil && found.Conflict == "" {
			for _, s := range found.Skills {
				env.Skills = append(env.Skills, harness.Skill{Name: s.Name, Description: s.Description, Path: s.Path})
			}
		}
	}
	req := harness.Request{Model: env.Model, Harness: h, Env: env,
		Conversation: []harness.Entry{{Kind: harness.KindUser, Text: "<your prompt>"}}}
	text, err := harness.DescribeRequest(req, wire, c.JSON)
	if err != nil {
		return exitf(1, "rendering: %v", err)
	}
	_, err = io.WriteString(stdio.Out, text)
	return err
}
