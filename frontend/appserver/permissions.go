package appserver

import (
	"encoding/json"
	"strconv"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// Codex's built-in permission profiles, each one of this server's sandbox
// modes. A client that picks one (the TUI's /permissions) sends its id as
// `permissions`, or the sandbox and approval policy it stands for.
var permissionProfiles = []struct{ id, sandbox string }{
	{":read-only", "read-only"},
	{":workspace", "workspace-write"},
	{":danger-full-access", "danger-full-access"},
}

// sandboxOfProfile is the sandbox mode of a permission profile id.
func sandboxOfProfile(id, field string) (string, error) {
	for _, p := range permissionProfiles {
		if p.id == id {
			return p.sandbox, nil
		}
	}
	return "", invalidRequest("Invalid request: %s: unknown permissions profile `%s`; this server has :read-only, :workspace and :danger-full-access", field, id)
}

// activeProfile is the built-in profile of a sandbox mode (the TUI's
// /permissions marks it current); nil for none.
func activeProfile(sandbox string) *protocol.ActivePermissionProfile {
	if sandbox == "" {
		sandbox = "workspace-write"
	}
	for _, p := range permissionProfiles {
		if p.sandbox == sandbox {
			return &protocol.ActivePermissionProfile{ID: p.id}
		}
	}
	return nil
}

// permissionProfileList lists the built-in profiles, all allowed (this
// server has no managed requirements), paged as Codex's server pages
// them: the cursor is the index of the next profile.
func (c *conn) permissionProfileList(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p struct {
		Cursor *string `json:"cursor"`
		Limit  *int    `json:"limit"`
		Cwd    *string `json:"cwd"`
	}
	if err := decodeParams(orEmptyObject(raw), &p); err != nil {
		return nil, err
	}
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(permissionProfiles) {
			return nil, invalidRequest("Invalid request: invalid cursor `%s`", *p.Cursor)
		}
		start = n
	}
	end := len(permissionProfiles)
	if p.Limit != nil && *p.Limit > 0 && start+*p.Limit < end {
		end = start + *p.Limit
	}
	page := protocol.Page[protocol.PermissionProfileSummary]{Data: []protocol.PermissionProfileSummary{}}
	for _, pr := range permissionProfiles[start:end] {
		page.Data = append(page.Data, protocol.PermissionProfileSummary{ID: pr.id, Allowed: true})
	}
	if end < len(permissionProfiles) {
		page.NextCursor = protocol.Nullable(strconv.Itoa(end))
	}
	return &result{value: page}, nil
}
