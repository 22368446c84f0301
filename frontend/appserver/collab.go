package appserver

import (
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/workflows"
)

// Collaboration modes, as Codex's TUI switches them (Shift+Tab): the
// default mode, and plan mode, in which the model explores without
// changing anything, asks the user with request_user_input and ends with
// a plan. A mode is sent with each turn/start and holds for that turn
// only (workflows.TurnMode).
const (
	modePlan    = "plan"
	modeDefault = "default"
)

//go:embed prompts/plan_mode.md
var planModeInstructions string

// collaborationModeList lists the modes turn/start accepts. Neither
// names a model or an effort of its own: a mode keeps the thread's.
func (c *conn) collaborationModeList(json.RawMessage, json.RawMessage) (*result, error) {
	return &result{value: protocol.List[protocol.CollaborationModeMask]{Data: []protocol.CollaborationModeMask{
		{Name: "Plan", Mode: modePlan},
		{Name: "Default", Mode: modeDefault},
	}}}, nil
}

// collaborationMode is turn/start's collaborationMode (CollaborationMode).
type collaborationMode struct {
	Mode     string `json:"mode"`
	Settings struct {
		Model                 string  `json:"model"`
		ReasoningEffort       *string `json:"reasoning_effort"`
		DeveloperInstructions *string `json:"developer_instructions"`
	} `json:"settings"`
}

// turnMode reads a turn/start collaborationMode into the turn's mode and
// the settings it overrides (model, effort), as Codex does: the mode's
// settings win over the turn's own. Developer instructions the client
// sends replace the mode's; null keeps them. The default mode adds
// nothing unless the client sends instructions.
func (c *conn) turnMode(raw json.RawMessage, s *settings) (*workflows.TurnMode, error) {
	if !isSet(raw) {
		return nil, nil
	}
	if !c.experimentalAPI() {
		return nil, invalidRequest("turn/start.collaborationMode requires experimentalApi capability")
	}
	var m collaborationMode
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, invalidRequest("Invalid request: collaborationMode: %v", err)
	}
	mode := &workflows.TurnMode{Name: m.Mode}
	switch m.Mode {
	case modePlan:
		mode.Instructions = strings.TrimSpace(planModeInstructions)
		mode.Tools = []workflows.ExternalTool{planUserInputTool()}
	case modeDefault:
	default:
		return nil, invalidRequest("Invalid request: collaborationMode.mode %q is not one of `plan`, `default`", m.Mode)
	}
	if di := m.Settings.DeveloperInstructions; di != nil {
		if err := workflows.CheckInput("turn/start.collaborationMode.settings.developer_instructions", *di); err != nil {
			return nil, inputTooLarge(err)
		}
		mode.Instructions = *di
	}
	if m.Settings.Model != "" {
		s.Model = m.Settings.Model
	}
	if e := m.Settings.ReasoningEffort; e != nil && *e != "" {
		s.Effort = *e
	}
	if mode.Instructions == "" && len(mode.Tools) == 0 {
		return nil, nil
	}
	return mode, nil
}

// planUserInputTool is request_user_input as plan mode offers it: the
// shape of Codex's (one to three questions, each with choices; the
// client adds a free-form answer of its own), answered like the tool that
// thread/start's requestUserInput offers.
func planUserInputTool() workflows.ExternalTool {
	t := userInputToolSpec()
	option := workflows.SchemaStrict([]string{"label", "description"},
		workflows.SchemaP("description", workflows.SchemaStr("One sentence on what choosing it means.")),
		workflows.SchemaP("label", workflows.SchemaStr("The choice as the user sees it, a few words.")))
	question := workflows.SchemaStrict([]string{"id", "header", "question", "options"},
		workflows.SchemaP("header", workflows.SchemaStr("A title of at most 12 characters.")),
		workflows.SchemaP("id", workflows.SchemaStr("A snake_case id the answer is keyed by.")),
		workflows.SchemaP("options", workflows.SchemaArr("Two or three choices that exclude each other, the recommended one first with \"(Recommended)\" after its label. No \"Other\": the user can always type an answer.", option)),
		workflows.SchemaP("question", workflows.SchemaStr("The question, one sentence.")))
	t.Description = "Ask the user one to three short questions and wait for the answers. Offered in Plan mode only."
	t.Parameters = workflows.SchemaStrict([]string{"questions"},
		workflows.SchemaP("questions", workflows.SchemaArr("The questions; one is best, three at most.", question)))
	return t
}

// threadSettingsUpdateParams are the thread/settings/update parameters
// this server takes (the TUI sends it when the user switches mode, model
// or permissions between turns).
type threadSettingsUpdateParams struct {
	ThreadID          string          `json:"threadId"`
	Model             *string         `json:"model"`
	Effort            *string         `json:"effort"`
	Cwd               *string         `json:"cwd"`
	ApprovalPolicy    json.RawMessage `json:"approvalPolicy"`
	SandboxPolicy     json.RawMessage `json:"sandboxPolicy"`
	CollaborationMode json.RawMessage `json:"collaborationMode"`

	// Permissions names a permission profile (permissions.go).
	Permissions *string `json:"permissions"`
}

// threadSettingsUpdate keeps settings for this connection's next turn on
// a thread it follows, as thread/resume's overrides: the thread's own
// config changes when that turn starts. A collaboration mode is kept too
// and used by a turn/start that names none.
func (c *conn) threadSettingsUpdate(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p threadSettingsUpdateParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	ts := c.subscribed(p.ThreadID)
	if ts == nil {
		return nil, invalidRequest("thread %s is not loaded on this connection: thread/start or thread/resume it first", p.ThreadID)
	}
	var s settings
	var err error
	if p.Model != nil {
		s.Model = *p.Model
	}
	if p.Effort != nil {
		s.Effort = *p.Effort
	}
	if p.Cwd != nil && *p.Cwd != "" {
		s.Cwd = c.absPath(*p.Cwd)
	}
	if isSet(p.ApprovalPolicy) {
		if s.ApprovalPolicy, err = approvalPolicyOf(p.ApprovalPolicy, "approvalPolicy"); err != nil {
			return nil, err
		}
	}
	if isSet(p.SandboxPolicy) {
		if s.SandboxMode, err = sandboxModeOf(p.SandboxPolicy, "sandboxPolicy"); err != nil {
			return nil, err
		}
	}
	if p.Permissions != nil {
		if s.SandboxMode, err = sandboxOfProfile(*p.Permissions, "permissions"); err != nil {
			return nil, err
		}
	}
	if isSet(p.CollaborationMode) {
		// Checked now, so that the turn that uses it cannot fail on it.
		var probe settings
		if _, err := c.turnMode(p.CollaborationMode, &probe); err != nil {
			return nil, err
		}
	}
	if err := workflows.CheckReasoning(s.Effort, ""); err != nil {
		return nil, invalidRequest("%s", strings.ReplaceAll(err.Error(), "model_reasoning_effort", "effort"))
	}
	c.mu.Lock()
	ts.pending.merge(s)
	if isSet(p.CollaborationMode) {
		ts.mode = p.CollaborationMode
	}
	c.mu.Unlock()
	return &result{value: protocol.Empty{}}, nil
}
