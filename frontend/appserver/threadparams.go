package appserver

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/interpreter-dev/interpreter/workflows"
)

// The settings a client gives thread/start, thread/resume and
// thread/fork, and how they are kept until the thread's next turn.

// threadParams are the settings thread/start and thread/resume share.
type threadParams struct {
	Model                 *string         `json:"model"`
	ModelProvider         *string         `json:"modelProvider"`
	Cwd                   *string         `json:"cwd"`
	ApprovalPolicy        json.RawMessage `json:"approvalPolicy"`
	Sandbox               *string         `json:"sandbox"`
	BaseInstructions      *string         `json:"baseInstructions"`
	DeveloperInstructions *string         `json:"developerInstructions"`
	Config                map[string]any  `json:"config"`
	DynamicTools          json.RawMessage `json:"dynamicTools"`
	// RequestUserInput (ours, experimental) offers the model the
	// request_user_input tool, answered with item/tool/requestUserInput.
	RequestUserInput bool `json:"requestUserInput"`
	// Ephemeral (thread/start): archive the thread once this connection
	// lets it go (ephemeral.go).
	Ephemeral bool `json:"ephemeral"`
	timeoutParams
}

// settings checks and reads the parameters both methods share.
func (c *conn) readThreadParams(method string, p *threadParams) (settings, error) {
	var s settings
	for _, f := range []struct {
		name string
		text *string
	}{{"baseInstructions", p.BaseInstructions}, {"developerInstructions", p.DeveloperInstructions}} {
		if f.text == nil {
			continue
		}
		if err := workflows.CheckInput(method+"."+f.name, *f.text); err != nil {
			return s, inputTooLarge(err)
		}
	}
	if isSet(p.DynamicTools) {
		if !c.experimentalAPI() {
			return s, invalidRequest("%s.dynamicTools requires experimentalApi capability", method)
		}
		if method != "thread/start" {
			return s, invalidRequest("%s.dynamicTools: dynamic tools are declared by thread/start and stay with the thread", method)
		}
		tools, err := decodeDynamicTools(p.DynamicTools)
		if err != nil {
			return s, err
		}
		s.DynamicTools = tools
	}
	if p.RequestUserInput {
		if !c.experimentalAPI() {
			return s, invalidRequest("%s.requestUserInput requires experimentalApi capability", method)
		}
		if method != "thread/start" {
			return s, invalidRequest("%s.requestUserInput: the tool is offered by thread/start and stays with the thread", method)
		}
		for _, t := range s.DynamicTools {
			if t.Name == userInputTool {
				return s, invalidRequest("Invalid request: dynamicTools declares %q, which requestUserInput offers already", userInputTool)
			}
		}
		s.DynamicTools = append(s.DynamicTools, userInputToolSpec())
	}
	if p.Model != nil {
		s.Model = *p.Model
	}
	if p.Cwd != nil && *p.Cwd != "" {
		s.Cwd = c.absPath(*p.Cwd)
	}
	if isSet(p.ApprovalPolicy) {
		ap, err := approvalPolicyOf(p.ApprovalPolicy, "approvalPolicy")
		if err != nil {
			return s, err
		}
		s.ApprovalPolicy = ap
	}
	if p.Sandbox != nil {
		if err := checkSandboxMode(*p.Sandbox, "sandbox"); err != nil {
			return s, err
		}
		s.SandboxMode = *p.Sandbox
	}
	return s, nil
}

func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && strings.TrimSpace(string(raw)) != "null"
}

func (c *conn) experimentalAPI() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.experimental
}

func (c *conn) absPath(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(c.s.opts.Cwd, p)
}

func (s *settings) merge(o settings) {
	if o.Model != "" {
		s.Model = o.Model
	}
	if o.Cwd != "" {
		s.Cwd = o.Cwd
	}
	if o.SandboxMode != "" {
		s.SandboxMode = o.SandboxMode
	}
	if o.ApprovalPolicy != "" {
		s.ApprovalPolicy = o.ApprovalPolicy
	}
	if o.Effort != "" {
		s.Effort = o.Effort
	}
	if o.Summary != "" {
		s.Summary = o.Summary
	}
	if o.Timeouts != nil {
		if s.Timeouts == nil {
			s.Timeouts = &workflows.Timeouts{}
		}
		t := *s.Timeouts
		if o.Timeouts.Turn != nil {
			t.Turn = o.Timeouts.Turn
		}
		if o.Timeouts.Stall != nil {
			t.Stall = o.Timeouts.Stall
		}
		if o.Timeouts.Approval != nil {
			t.Approval = o.Timeouts.Approval
		}
		s.Timeouts = &t
	}
}

// apply shows a config with these overrides.
func (s settings) apply(cfg workflows.ThreadConfig) workflows.ThreadConfig {
	if s.Model != "" {
		cfg.Model = s.Model
	}
	if s.Cwd != "" {
		cfg.Cwd = s.Cwd
	}
	if s.SandboxMode != "" {
		cfg.SandboxMode = s.SandboxMode
	}
	if s.ApprovalPolicy != "" {
		cfg.ApprovalPolicy = s.ApprovalPolicy
	}
	return cfg
}
