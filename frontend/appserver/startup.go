package appserver

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// The methods Codex's own clients (the TUI, `codex exec --remote`) call
// while they start, for capabilities this server lacks or keeps
// elsewhere. Each answer is true of this server: no account to log into
// (the server holds the model provider's credentials), no managed
// requirements, hooks or plugins.

// accountRead: the client needs no OpenAI login; the model provider's
// key, if any, is the server's.
// accountRead says how the model provider authenticates: an API key, or
// nothing (no ChatGPT login: requiresOpenaiAuth stays false, so the TUI
// asks for none).
func (c *conn) accountRead(json.RawMessage, json.RawMessage) (*result, error) {
	var account *protocol.Account
	if c.s.opts.APIKey {
		account = &protocol.Account{Type: "apiKey"}
	}
	return &result{value: protocol.GetAccountResponse{Account: account}}, nil
}

func (c *conn) configRequirementsRead(json.RawMessage, json.RawMessage) (*result, error) {
	return &result{value: protocol.ConfigRequirementsReadResponse{}}, nil
}

// hooksList lists no hooks (none run here) for each directory asked for:
// the cwds given, the thread's cwd, or the server's.
func (c *conn) hooksList(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		Cwds     []string `json:"cwds"`
		ThreadID *string  `json:"threadId"`
	}
	if err := decodeParams(orEmptyObject(raw), &p); err != nil {
		return nil, err
	}
	cwds := p.Cwds
	if len(cwds) == 0 && p.ThreadID != nil {
		ctx, cancel := c.requestContext()
		info, err := c.readThread(ctx, *p.ThreadID)
		cancel()
		if err != nil {
			return nil, err
		}
		cwds = []string{info.Config.Cwd}
	}
	if len(cwds) == 0 {
		cwds = []string{c.s.opts.Cwd}
	}
	data := make([]protocol.HooksListEntry, 0, len(cwds))
	for _, cwd := range cwds {
		data = append(data, protocol.HooksListEntry{Cwd: cwd, Hooks: []json.RawMessage{}, Warnings: []string{}, Errors: []json.RawMessage{}})
	}
	return &result{value: protocol.List[protocol.HooksListEntry]{Data: data}}, nil
}

// pluginList: no plugin marketplaces here.
func (c *conn) pluginList(json.RawMessage, json.RawMessage) (*result, error) {
	return &result{value: protocol.PluginListResponse{Marketplaces: []json.RawMessage{}, MarketplaceLoadErrors: []json.RawMessage{},
		FeaturedPluginIDs: []string{}}}, nil
}

// externalAgentConfigDetect (/import): this server imports no other
// agent's configuration, so it finds none.
func (c *conn) externalAgentConfigDetect(json.RawMessage, json.RawMessage) (*result, error) {
	return &result{value: protocol.ExternalAgentConfigDetectResponse{Items: []json.RawMessage{}, Connectors: []json.RawMessage{}}}, nil
}

// accountLogout (/logout): there is no login to end (the model
// provider's key is the server's); Codex's server answers {} when no one
// is logged in, and so does this one.
func (c *conn) accountLogout(json.RawMessage, json.RawMessage) (*result, error) {
	return &result{value: protocol.Empty{}}, nil
}

// mcpServerStatusList lists the configured MCP servers. Their tools are
// not listed: a server runs on the worker, per turn, not in this process;
// runtimeStatus is "disabled" for a disabled one and null (unknown) for
// the others.
func (c *conn) mcpServerStatusList(json.RawMessage, json.RawMessage) (*result, error) {
	data := []protocol.McpServerStatus{}
	for _, m := range c.s.opts.MCPServers {
		auth := "unsupported"
		if m.BearerToken {
			auth = "bearerToken"
		}
		var status *string
		if m.Disabled {
			status = protocol.Nullable("disabled")
		}
		data = append(data, protocol.McpServerStatus{Name: m.Name, AuthStatus: auth, Tools: map[string]json.RawMessage{},
			Resources: []json.RawMessage{}, ResourceTemplates: []json.RawMessage{}, RuntimeStatus: status})
	}
	return &result{value: protocol.Page[protocol.McpServerStatus]{Data: data}}, nil
}

func (c *conn) pluginInstalled(json.RawMessage, json.RawMessage) (*result, error) {
	return &result{value: protocol.PluginInstalledResponse{Marketplaces: []json.RawMessage{}, MarketplaceLoadErrors: []json.RawMessage{}}}, nil
}

// threadLoadedList lists the threads this connection follows (a thread is
// "loaded" for a client once it started or resumed it).
func (c *conn) threadLoadedList(json.RawMessage, json.RawMessage) (*result, error) {
	c.mu.Lock()
	ids := make([]string, 0, len(c.threads))
	for id := range c.threads {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	sort.Strings(ids)
	return &result{value: protocol.Page[string]{Data: ids}}, nil
}

// SkillLister is a Backend that can list skills (skills/list); without it
// the list is empty. (An optional interface, so other Backends need no
// change.)
type SkillLister interface {
	// Skills are what a turn in cwd would be offered; warnings say which
	// were skipped and why.
	Skills(ctx context.Context, cwd string) (skills []SkillInfo, warnings []string, err error)
}

// SkillInfo is one skill as skills/list shows it.
type SkillInfo struct {
	Name, Description string
	// Path is the skill's SKILL.md; Scope is user, repo or system.
	Path, Scope string
	// Enabled: false for a skill config.toml turns off.
	Enabled bool
}

// skillsList lists the skills of each cwd asked for (default: the
// server's).
func (c *conn) skillsList(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		Cwds []string `json:"cwds"`
	}
	if len(raw) > 0 {
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
	}
	if len(p.Cwds) == 0 {
		p.Cwds = []string{c.s.opts.Cwd}
	}
	lister, _ := c.s.backend.(SkillLister)
	data := make([]protocol.SkillsListEntry, 0, len(p.Cwds))
	for _, cwd := range p.Cwds {
		entry := protocol.SkillsListEntry{Cwd: cwd, Skills: []protocol.SkillMetadata{}, Errors: []protocol.SkillErrorInfo{}}
		if lister == nil {
			data = append(data, entry)
			continue
		}
		ctx, cancel := c.requestContext()
		found, warnings, err := lister.Skills(ctx, c.absPath(cwd))
		cancel()
		if err != nil {
			warnings = append(warnings, err.Error())
		}
		for _, w := range warnings {
			entry.Errors = append(entry.Errors, protocol.SkillErrorInfo{Path: cwd, Message: w})
		}
		for _, s := range found {
			entry.Skills = append(entry.Skills, protocol.SkillMetadata{Name: s.Name, Description: s.Description, Path: s.Path,
				Scope: s.Scope, Enabled: s.Enabled})
		}
		data = append(data, entry)
	}
	return &result{value: protocol.List[protocol.SkillsListEntry]{Data: data}}, nil
}

// bedrockGovCloud: this server talks to no Amazon Bedrock GovCloud
// region it would warn about.
func (c *conn) bedrockGovCloud(json.RawMessage, json.RawMessage) (*result, error) {
	return &result{value: protocol.BedrockGovCloudResponse{}}, nil
}
