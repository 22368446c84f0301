package appserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
	"github.com/interpreter-dev/interpreter/workflows"
)

// The protocol's shapes live in package protocol; these names are the
// ones the server's files use.
type (
	Thread       = protocol.Thread
	ThreadStatus = protocol.ThreadStatus
	TurnError    = protocol.TurnError
	tokenUsage   = protocol.TokenUsage
)

var (
	statusIdle        = protocol.StatusIdle
	statusNotLoaded   = protocol.StatusNotLoaded
	statusSystemError = protocol.StatusSystemError
)

func statusActive() ThreadStatus { return protocol.StatusActive() }

// turnError is a failed turn's error (codexErrorInfo "other").
func turnError(msg string) *TurnError {
	return &TurnError{Message: msg}
}

// Turn statuses.
const (
	turnInProgress  = protocol.TurnStatusInProgress
	turnCompleted   = protocol.TurnStatusCompleted
	turnInterrupted = protocol.TurnStatusInterrupted
	turnFailed      = protocol.TurnStatusFailed
)

func turnStatus(s string) string {
	switch s {
	case workflows.StatusCompleted:
		return turnCompleted
	case workflows.StatusInterrupted:
		return turnInterrupted
	case workflows.StatusFailed:
		return turnFailed
	}
	return turnInProgress
}

// itemStatus maps a workflow item status to CommandExecutionStatus /
// PatchApplyStatus, through [workflows.ShownStatus] (an interrupted item
// is failed, as in every front end).
func itemStatus(s string) string {
	switch workflows.ShownStatus(s) {
	case workflows.StatusCompleted:
		return protocol.StatusCompleted
	case workflows.StatusDeclined:
		return protocol.StatusDeclined
	case workflows.StatusFailed:
		return protocol.StatusFailed
	}
	return protocol.StatusInProgress
}

func breakdown(in, cached, out, reasoning int64) protocol.TokenUsageBreakdown {
	return protocol.TokenUsageBreakdown{TotalTokens: in + out, InputTokens: in, CachedInputTokens: cached,
		OutputTokens: out, ReasoningOutputTokens: reasoning}
}

// sandboxPolicy is the protocol's SandboxPolicy for a sandbox mode.
func sandboxPolicy(mode, cwd string) protocol.SandboxPolicy {
	switch mode {
	case "read-only":
		return protocol.ReadOnly()
	case "workspace-write":
		roots := []string{}
		if cwd != "" {
			roots = append(roots, cwd)
		}
		return protocol.WorkspaceWrite(roots)
	}
	return protocol.DangerFullAccess()
}

// sandboxModeOf reads a SandboxPolicy (turn/start's sandboxPolicy) as a
// sandbox mode. Writable roots and network access are not configurable
// per thread yet: the workspace-write sandbox grants the cwd, and the
// network follows the sandbox helper's defaults.
func sandboxModeOf(raw json.RawMessage, field string) (string, error) {
	var p struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", invalidRequest("Invalid request: invalid type: %s for field `%s`, expected a tagged object", jsonKind(raw), field)
	}
	if p.Type == nil {
		return "", invalidRequest("Invalid request: missing field `type` in `%s`", field)
	}
	switch *p.Type {
	case "dangerFullAccess", "externalSandbox":
		return "danger-full-access", nil
	case "readOnly":
		return "read-only", nil
	case "workspaceWrite":
		return "workspace-write", nil
	}
	return "", invalidRequest("Invalid request: unknown variant `%s` for field `%s`, expected one of `dangerFullAccess`, `readOnly`, `externalSandbox`, `workspaceWrite`", *p.Type, field)
}

var sandboxModes = []string{"read-only", "workspace-write", "danger-full-access"}
var approvalPolicies = []string{"untrusted", "on-failure", "on-request", "never"}

// checkSandboxMode validates a SandboxMode value.
func checkSandboxMode(mode, field string) error {
	return checkEnum(mode, field, sandboxModes)
}

// approvalPolicyOf reads an AskForApproval value. The granular form is
// refused: this server's policies are the four named ones.
func approvalPolicyOf(raw json.RawMessage, field string) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		if jsonKind(raw) == "object" {
			return "", invalidRequest("Invalid request: granular approval policies are not supported; `%s` must be one of `untrusted`, `on-failure`, `on-request`, `never`", field)
		}
		return "", invalidRequest("Invalid request: invalid type: %s for field `%s`, expected a string", jsonKind(raw), field)
	}
	return s, checkEnum(s, field, approvalPolicies)
}

func checkEnum(v, field string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return invalidRequest("Invalid request: unknown variant `%s` for field `%s`, expected one of `%s`", v, field, strings.Join(allowed, "`, `"))
}

// userInput is one input item of turn/start: text, image or localImage.
type userInput struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	URL  string `json:"url,omitempty"`
	Path string `json:"path,omitempty"`
}

// decodeInput reads turn/start's input items: the text parts make the
// prompt, the image parts (url) and localImage parts (path, relative to
// the server's working directory as abs resolves it) are attached.
func decodeInput(raw json.RawMessage, abs func(string) string) (items []userInput, prompt string, images []workflows.ImageSource, err error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, "", nil, invalidRequest("Invalid request: invalid type: %s for field `input`, expected an array", jsonKind(raw))
	}
	var parts []string
	chars := 0
	for i, r := range list {
		var it userInput
		if err := json.Unmarshal(r, &it); err != nil {
			return nil, "", nil, invalidRequest("Invalid request: invalid type: %s for field `input[%d]`, expected an input item", jsonKind(r), i)
		}
		switch it.Type {
		case "text":
			chars += len([]rune(it.Text))
			parts = append(parts, it.Text)
		case "image":
			if it.URL == "" {
				return nil, "", nil, invalidRequest("Invalid request: missing field `url` in `input[%d]`", i)
			}
			images = append(images, workflows.ImageSource{URL: it.URL})
		case "localImage":
			if it.Path == "" {
				return nil, "", nil, invalidRequest("Invalid request: missing field `path` in `input[%d]`", i)
			}
			images = append(images, workflows.ImageSource{Path: abs(it.Path)})
		case "":
			return nil, "", nil, invalidRequest("Invalid request: missing field `type` in `input[%d]`", i)
		default:
			return nil, "", nil, invalidRequest("Invalid request: unsupported input item type `%s` in `input[%d]` (supported: text, image, localImage)", it.Type, i)
		}
		items = append(items, it)
	}
	if chars > workflows.MaxInputChars {
		return nil, "", nil, inputTooLarge(&workflows.InputTooLargeError{What: "Input", Chars: chars})
	}
	prompt = strings.Join(parts, "\n\n")
	// Image URLs travel in the turn's input too (data: URLs can be big).
	all := prompt
	for _, im := range images {
		all += im.URL
	}
	if err := workflows.CheckInput("Input", all); err != nil {
		return nil, "", nil, inputTooLarge(err)
	}
	if strings.TrimSpace(prompt) == "" && len(images) == 0 {
		return nil, "", nil, invalidRequest("Invalid request: `input` holds no text")
	}
	return items, prompt, images, nil
}

// inputTooLarge is the error for text over the input limits (the
// reference's shape: -32602 with input_error_code input_too_large).
func inputTooLarge(err error) *rpcError {
	data := protocol.InputErrorData{InputErrorCode: "input_too_large", MaxChars: workflows.MaxInputChars, MaxBytes: workflows.MaxInputBytes}
	var e *workflows.InputTooLargeError
	if errors.As(err, &e) {
		data.ActualChars, data.ActualBytes = &e.Chars, e.Bytes
	}
	return &rpcError{Code: codeInvalidParams, Message: err.Error(), Data: data}
}

// userInputs are a userMessage item's content.
func userInputs(items []userInput) []protocol.UserInput {
	out := make([]protocol.UserInput, 0, len(items))
	for _, it := range items {
		switch it.Type {
		case "text":
			out = append(out, protocol.Text(it.Text))
		case "image":
			out = append(out, protocol.ImageInput{URL: it.URL})
		case "localImage":
			out = append(out, protocol.LocalImageInput{Path: it.Path})
		}
	}
	return out
}

func userMessage(turnNumber int, content []protocol.UserInput) protocol.UserMessageItem {
	return protocol.UserMessageItem{ID: fmt.Sprintf("user_%d", turnNumber), Content: content}
}

// turnNumber reads n from a turn id `<thread>/turn-<n>`.
func turnNumber(turnID string) int {
	i := strings.LastIndex(turnID, "/turn-")
	if i < 0 {
		return 0
	}
	n := 0
	for _, c := range turnID[i+len("/turn-"):] {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}
