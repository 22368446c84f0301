package protocol_test

import (
	"encoding/json"
	"testing"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// The configuration methods' answers, and their parameters as Codex's
// TUI sends them, satisfy the reference schemas.
func TestConfigMessagesMatchTheSchema(t *testing.T) {
	v := load(t)
	check(t, v, "v2/ConfigWriteResponse", protocol.ConfigWriteResponse{Status: protocol.WriteOK, Version: "sha256:00", FilePath: "/h/config.toml"})
	check(t, v, "v2/ConfigWriteResponse", protocol.ConfigWriteResponse{Status: protocol.WriteOKOverridden, Version: "sha256:00", FilePath: "/h/config.toml",
		OverriddenMetadata: &protocol.OverriddenMetadata{Message: "m", EffectiveValue: "o3",
			OverridingLayer: protocol.ConfigLayerMetadata{Name: protocol.ConfigLayerSource{Type: "sessionFlags"}, Version: "sha256:01"}}})
	profile := "fast"
	check(t, v, "v2/ConfigWriteResponse", protocol.ConfigWriteResponse{Status: protocol.WriteOKOverridden, Version: "sha256:00", FilePath: "/h/config.toml",
		OverriddenMetadata: &protocol.OverriddenMetadata{Message: "m", EffectiveValue: 3,
			OverridingLayer: protocol.ConfigLayerMetadata{Name: protocol.ConfigLayerSource{Type: "user", File: "/h/config.toml", Profile: &profile}, Version: "sha256:00"}}})
	check(t, v, "v2/SkillsConfigWriteResponse", protocol.SkillsConfigWriteResponse{EffectiveEnabled: true})
	check(t, v, "v2/PermissionProfileListResponse", protocol.Page[protocol.PermissionProfileSummary]{Data: []protocol.PermissionProfileSummary{{ID: ":workspace", Allowed: true}}})
	check(t, v, "v2/HooksListResponse", protocol.List[protocol.HooksListEntry]{Data: []protocol.HooksListEntry{{Cwd: "/w", Hooks: []json.RawMessage{}, Warnings: []string{}, Errors: []json.RawMessage{}}}})
	check(t, v, "v2/PluginListResponse", protocol.PluginListResponse{Marketplaces: []json.RawMessage{}, MarketplaceLoadErrors: []json.RawMessage{}, FeaturedPluginIDs: []string{}})
	check(t, v, "v2/ExternalAgentConfigDetectResponse", protocol.ExternalAgentConfigDetectResponse{Items: []json.RawMessage{}, Connectors: []json.RawMessage{}})
	check(t, v, "v2/LogoutAccountResponse", protocol.Empty{})
	check(t, v, "JSONRPCErrorError", map[string]any{"code": -32600, "message": "Configuration was modified since last read. Fetch latest version and retry.",
		"data": protocol.ConfigWriteErrorData{ConfigWriteErrorCode: "configVersionConflict"}})
	value := "gpt-5.1"
	check(t, v, "v2/ConfigValueWriteParams", protocol.ConfigValueWriteParams{ConfigEdit: protocol.ConfigEdit{KeyPath: "model",
		Value: json.RawMessage(`"gpt-5.1"`), MergeStrategy: "replace"}, ConfigWriteTarget: protocol.ConfigWriteTarget{ExpectedVersion: &value}})
}
