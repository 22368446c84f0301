package protocol

import "encoding/json"

// The messages of the configuration methods: config/batchWrite,
// config/value/write, skills/config/write and permissionProfile/list, and
// the answers of methods for features this server does not have (hooks,
// plugins, importing another agent's configuration, logging out).

// ConfigEdit is one edit of config/batchWrite (config/value/write's
// parameters are one edit with the same fields).
type ConfigEdit struct {
	KeyPath string `json:"keyPath"`
	// Value is any JSON value; null removes the key.
	Value json.RawMessage `json:"value"`
	// MergeStrategy is "replace" or "upsert".
	MergeStrategy string `json:"mergeStrategy"`
}

// ConfigWriteTarget are the fields both write methods share.
type ConfigWriteTarget struct {
	// FilePath: only the user's config.toml may be written.
	FilePath *string `json:"filePath"`
	// ExpectedVersion, when set, must be the file's current version.
	ExpectedVersion *string `json:"expectedVersion"`
}

// ConfigBatchWriteParams are config/batchWrite's parameters.
type ConfigBatchWriteParams struct {
	Edits []ConfigEdit `json:"edits"`
	ConfigWriteTarget
	// ReloadUserConfig asks for the new settings in loaded threads; here
	// every new thread and every turn reads the file anyway.
	ReloadUserConfig bool `json:"reloadUserConfig"`
}

// ConfigValueWriteParams are config/value/write's parameters.
type ConfigValueWriteParams struct {
	ConfigEdit
	ConfigWriteTarget
}

// Write statuses: written, or written but a layer above the file sets
// the key.
const (
	WriteOK           = "ok"
	WriteOKOverridden = "okOverridden"
)

// ConfigWriteResponse answers both write methods.
type ConfigWriteResponse struct {
	Status             string              `json:"status"`
	Version            string              `json:"version"`
	FilePath           string              `json:"filePath"`
	OverriddenMetadata *OverriddenMetadata `json:"overriddenMetadata"`
}

// OverriddenMetadata says which layer overrides a written key, and the
// value that is in effect.
type OverriddenMetadata struct {
	Message         string              `json:"message"`
	OverridingLayer ConfigLayerMetadata `json:"overridingLayer"`
	EffectiveValue  any                 `json:"effectiveValue"`
}

// ConfigLayerMetadata names a configuration layer.
type ConfigLayerMetadata struct {
	Name    ConfigLayerSource `json:"name"`
	Version string            `json:"version"`
}

// ConfigLayerSource is a layer: "sessionFlags" (the server's -c
// overrides) or "user" (config.toml, File set; Profile for the selected
// profile).
type ConfigLayerSource struct {
	Type    string  `json:"type"`
	File    string  `json:"file,omitempty"`
	Profile *string `json:"profile,omitempty"`
}

// ConfigWriteErrorData is the data of a refused write's error.
type ConfigWriteErrorData struct {
	// ConfigWriteErrorCode: configValidationError, configVersionConflict,
	// configLayerReadonly.
	ConfigWriteErrorCode string `json:"config_write_error_code"`
}

// SkillsConfigWriteParams are skills/config/write's parameters: one of
// Name and Path selects the skill.
type SkillsConfigWriteParams struct {
	Name    *string `json:"name"`
	Path    *string `json:"path"`
	Enabled *bool   `json:"enabled"`
}

// SkillsConfigWriteResponse answers skills/config/write.
type SkillsConfigWriteResponse struct {
	EffectiveEnabled bool `json:"effectiveEnabled"`
}

// PermissionProfileSummary is one profile of permissionProfile/list.
type PermissionProfileSummary struct {
	ID          string  `json:"id"`
	Description *string `json:"description"`
	Allowed     bool    `json:"allowed"`
}

// HooksListEntry is hooks/list's answer for one directory: no hooks run
// here, so none are listed.
type HooksListEntry struct {
	Cwd      string            `json:"cwd"`
	Hooks    []json.RawMessage `json:"hooks"`
	Warnings []string          `json:"warnings"`
	Errors   []json.RawMessage `json:"errors"`
}

// PluginListResponse answers plugin/list: no marketplaces.
type PluginListResponse struct {
	Marketplaces          []json.RawMessage `json:"marketplaces"`
	MarketplaceLoadErrors []json.RawMessage `json:"marketplaceLoadErrors"`
	FeaturedPluginIDs     []string          `json:"featuredPluginIds"`
}

// ExternalAgentConfigDetectResponse answers externalAgentConfig/detect:
// nothing to import.
type ExternalAgentConfigDetectResponse struct {
	Items      []json.RawMessage `json:"items"`
	Connectors []json.RawMessage `json:"connectors"`
}

// ActivePermissionProfile names the permission profile a thread runs
// with (thread/start's activePermissionProfile).
type ActivePermissionProfile struct {
	ID string `json:"id"`
}
