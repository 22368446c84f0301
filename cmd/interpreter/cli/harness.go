package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

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
	tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tWIRE APIS\tTOOLS")
	for _, name := range harness.Names() {
		h, _ := harness.Lookup(name)
		info := h.Info()
		var tools []string
		for _, t := range h.Tools() {
			tools = append(tools, t.Name+"→"+t.Core)
		}
		list := strings.Join(tools, ", ")
		if info.TextLoop {
			list = "none: text loop, one command per reply, run as shell"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, strings.Join(info.Wires, ", "), list)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdio.Out, "\nWithout `harness` in config (or --harness), a Messages provider gets claude-code and other providers\n"+
		"the model family's harness: claude → claude-code, kimi/moonshot → kimi-cli, qwen/qwq/dashscope → qwen-code,\n"+
		"deepseek → deepseek-tui, gpt/o-series/anything else → codex.\n")
	return nil
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
		if found, err := findSkills(ctx, cfg, env.Cwd); err == nil && found.Conflict == "" {
			for _, s := range found.Skills {
				env.Skills = append(env.Skills, harness.Skill{Name: s.Name, Description: s.Description, Path: s.Path})
			}
		}
	}
	req := harness.Request{Model: env.Model, Harness: h, Env: env,
		Conversation: []harness.Entry{{Kind: harness.KindUser, Text: "<your prompt>"}}}
	var params any
	switch wire {
	case harness.WireResponses:
		params = harness.RenderResponses(req)
	case harness.WireChat:
		params = harness.RenderChat(req)
	case harness.WireMessages:
		params = harness.RenderMessages(req)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return exitf(1, "rendering: %v", err)
	}
	if c.JSON {
		var b bytes.Buffer
		_ = json.Indent(&b, raw, "", "  ")
		fmt.Fprintln(stdio.Out, b.String())
		return nil
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		return exitf(1, "rendering: %v", err)
	}
	system := systemPrompt(wire, body)
	tools := body["tools"]
	for _, k := range []string{"instructions", "input", "messages", "system", "tools"} {
		delete(body, k)
	}
	info := h.Info()
	fmt.Fprintf(stdio.Out, "harness %s over %s, model %s\n", info.Name, wire, env.Model)
	if info.StartupContext {
		fmt.Fprintf(stdio.Out, "(a thread opens with a start-up context exchange: date, OS, working directory and its listing)\n")
	}
	fmt.Fprintf(stdio.Out, "\n--- system prompt ---\n%s\n", strings.TrimRight(system, "\n"))
	fmt.Fprintf(stdio.Out, "\n--- tools (as sent) ---\n")
	if len(tools) == 0 {
		fmt.Fprintln(stdio.Out, "none (text loop: the command is read from the reply, its output is the next user message)")
	} else {
		var b bytes.Buffer
		_ = json.Indent(&b, tools, "", "  ")
		fmt.Fprintln(stdio.Out, b.String())
	}
	rest, _ := json.MarshalIndent(body, "", "  ")
	fmt.Fprintf(stdio.Out, "\n--- other request fields ---\n%s\n", rest)
	return nil
}

// systemPrompt finds the system prompt in a rendered request body.
func systemPrompt(wire string, body map[string]json.RawMessage) string {
	var s string
	switch wire {
	case harness.WireResponses:
		_ = json.Unmarshal(body["instructions"], &s)
	case harness.WireChat:
		var msgs []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		_ = json.Unmarshal(body["messages"], &msgs)
		if len(msgs) > 0 && msgs[0].Role == "system" {
			s = msgs[0].Content
		}
	case harness.WireMessages:
		var blocks []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(body["system"], &blocks)
		for _, b := range blocks {
			s += b.Text
		}
	}
	return s
}
