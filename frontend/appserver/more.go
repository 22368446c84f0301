package appserver

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"

	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

type forkParams struct {
	threadParams
	ThreadID string `json:"threadId"`
}

// threadFork branches a thread: a new thread id whose history is the
// source's as of its last finished turn (a running turn is left out, as if
// it had been interrupted first).
func (c *conn) threadFork(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p forkParams
	if err := decodeParams(raw, &p, "threadId"); err != nil {
		return nil, err
	}
	s, err := c.readThreadParams("thread/fork", &p.threadParams)
	if err != nil {
		return nil, err
	}
	ts := ThreadSettings{Model: s.Model, Cwd: s.Cwd, ApprovalPolicy: s.ApprovalPolicy, SandboxMode: s.SandboxMode, Config: p.Config}
	if p.ModelProvider != nil {
		ts.ModelProvider = *p.ModelProvider
	}
	if p.BaseInstructions != nil {
		ts.BaseInstructions = *p.BaseInstructions
	}
	if p.DeveloperInstructions != nil {
		ts.DeveloperInstructions = *p.DeveloperInstructions
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	if _, err := c.readThread(ctx, p.ThreadID); err != nil {
		return nil, err
	}
	info, err := c.s.backend.ForkThread(ctx, p.ThreadID, ts)
	if errors.Is(err, threads.ErrThreadNotFound) {
		return nil, threadNotFound(p.ThreadID)
	}
	if err != nil {
		return nil, asRequestError(err)
	}
	sub := c.subscribe(info.ID)
	th := c.thread(info, statusIdle, nil)
	if p.Ephemeral {
		// The TUI's side conversations (side.go): gone with the connection.
		c.mu.Lock()
		sub.ephemeral = true
		c.mu.Unlock()
		th.Ephemeral = true
	}
	return &result{
		value: c.threadResponse(th, info, info.Config),
		then: func() {
			c.notify(notice(protocol.ThreadStarted{Thread: th}))
		},
	}, nil
}

// modelList lists the configured models. A model that reasons offers
// every effort; one that does not offers only the provider's default.
func (c *conn) modelList(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		Cursor *string `json:"cursor"`
		Limit  *int    `json:"limit"`
	}
	if err := decodeParams(orEmptyObject(raw), &p); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	models, err := c.s.backend.Models(ctx)
	if err != nil {
		return nil, internalError("listing models: %v", err)
	}
	data := []protocol.Model{}
	for _, m := range models {
		data = append(data, protocol.Model{
			ID: m.ID, Model: m.ID, DisplayName: orDefault(m.DisplayName, m.ID),
			Description: "via provider " + m.Provider, IsDefault: m.IsDefault,
			DefaultReasoningEffort:    "medium",
			SupportedReasoningEfforts: efforts(m.ID),
			InputModalities:           modalities(m.ID),
		})
	}
	return &result{value: protocol.Page[protocol.Model]{Data: data}}, nil
}

func (c *conn) experimentalFeatureList(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := decodeParams(orEmptyObject(raw), &p); err != nil {
		return nil, err
	}
	return &result{value: protocol.Page[json.RawMessage]{Data: []json.RawMessage{}}}, nil
}

// configRead returns the effective configuration (config.toml with the
// server's -c overrides); layers are not reported.
func (c *conn) configRead(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		Cwd           *string `json:"cwd"`
		IncludeLayers bool    `json:"includeLayers"`
	}
	if err := decodeParams(orEmptyObject(raw), &p); err != nil {
		return nil, err
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	cfg, err := c.s.backend.Config(ctx)
	if err != nil {
		return nil, internalError("reading the configuration: %v", err)
	}
	res := protocol.ConfigReadResponse{Config: cfg, Origins: map[string]json.RawMessage{}}
	if p.IncludeLayers {
		res.Layers = &[]json.RawMessage{}
	}
	return &result{value: res}, nil
}

type commandExecParams struct {
	Command            []string           `json:"command"`
	Cwd                *string            `json:"cwd"`
	Env                map[string]*string `json:"env"`
	SandboxPolicy      json.RawMessage    `json:"sandboxPolicy"`
	TimeoutMs          *int64             `json:"timeoutMs"`
	DisableTimeout     bool               `json:"disableTimeout"`
	OutputBytesCap     *int               `json:"outputBytesCap"`
	DisableOutputCap   bool               `json:"disableOutputCap"`
	ProcessID          *string            `json:"processId"`
	TTY                bool               `json:"tty"`
	StreamStdin        bool               `json:"streamStdin"`
	StreamStdoutStderr bool               `json:"streamStdoutStderr"`
	Size               *terminalSize      `json:"size"`
}

// Defaults of command/exec, as the reference documents them.
const (
	defaultExecTimeout   = 10 * time.Second
	defaultExecOutputCap = 1 << 20
)

// commandExec runs one command outside any turn, buffered or streamed
// (see execstream.go). The response comes when the command has exited.
func (c *conn) commandExec(id json.RawMessage, raw json.RawMessage) (*result, error) {
	var p commandExecParams
	if err := decodeParams(raw, &p, "command"); err != nil {
		return nil, err
	}
	switch {
	case len(p.Command) == 0:
		return nil, invalidRequest("command must not be empty")
	case p.DisableTimeout && p.TimeoutMs != nil:
		return nil, invalidRequest("disableTimeout cannot be combined with timeoutMs")
	case p.DisableOutputCap && p.OutputBytesCap != nil:
		return nil, invalidRequest("disableOutputCap cannot be combined with outputBytesCap")
	}
	r := ExecRequest{Command: p.Command, Cwd: c.s.opts.Cwd, Env: p.Env, Timeout: defaultExecTimeout, OutputCap: defaultExecOutputCap}
	if p.Cwd != nil && *p.Cwd != "" {
		r.Cwd = c.absPath(*p.Cwd)
	}
	if isSet(p.SandboxPolicy) {
		mode, err := sandboxModeOf(p.SandboxPolicy, "sandboxPolicy")
		if err != nil {
			return nil, err
		}
		r.SandboxMode = mode
	}
	switch {
	case p.DisableTimeout:
		r.Timeout = 0
	case p.TimeoutMs != nil:
		r.Timeout = time.Duration(*p.TimeoutMs) * time.Millisecond
	}
	switch {
	case p.DisableOutputCap:
		r.OutputCap = 0
	case p.OutputBytesCap != nil:
		r.OutputCap = *p.OutputBytesCap
	}
	if p.TTY || p.StreamStdin || p.StreamStdoutStderr {
		if !p.DisableTimeout && p.TimeoutMs == nil {
			r.Timeout = 0 // a streamed process runs until it exits or is ended
		}
		return c.streamed(id, p, r)
	}
	c.background(func() {
		res, err := c.s.backend.Exec(c.ctx, r)
		if err != nil {
			if c.ctx.Err() == nil {
				c.fail(id, asRequestError(err))
			}
			return
		}
		c.respond(id, protocol.CommandExecResponse{ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr})
	})
	return nil, nil
}

func orEmptyObject(raw json.RawMessage) json.RawMessage {
	if !isSet(raw) {
		return json.RawMessage("{}")
	}
	return raw
}

// efforts lists the reasoning efforts a model takes, as model/list shows
// them.
func efforts(model string) []protocol.ReasoningEffortOption {
	if !workflows.ReasoningModel(model) {
		return []protocol.ReasoningEffortOption{{ReasoningEffort: "medium", Description: "the provider's default"}}
	}
	says := map[string]string{
		"none": "no reasoning", "minimal": "as little reasoning as the model allows", "low": "quick answers",
		"medium": "the default balance of speed and depth", "high": "deeper reasoning for hard problems",
		"xhigh": "the most reasoning the model offers",
	}
	var out []protocol.ReasoningEffortOption
	for _, e := range workflows.ReasoningEfforts {
		out = append(out, protocol.ReasoningEffortOption{ReasoningEffort: e, Description: says[e]})
	}
	return out
}

// modalities are what a model reads: text, and pictures unless its
// family is known to read text alone.
func modalities(model string) []string {
	if workflows.AcceptsImages(model) {
		return []string{"text", "image"}
	}
	return []string{"text"}
}
