package appserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
)

// config/batchWrite, config/value/write and skills/config/write: the
// TUI's "save as default" of /model, /memories and the skill toggles of
// /skills write the server's config.toml. New threads and turns read the
// file again, so what is written applies to them.

// ConfigWriter is a Backend that can write its configuration file; without
// it the write methods are refused.
type ConfigWriter interface {
	// WriteConfig makes the edits in config.toml, all or none; a refusal
	// is a *[ConfigWriteError].
	WriteConfig(ctx context.Context, w ConfigWrite) (ConfigWritten, error)
	// SetSkillEnabled turns a skill (selected by name or by path) on or
	// off, and says whether it is enabled now.
	SetSkillEnabled(ctx context.Context, name, path string, enabled bool) (bool, error)
}

// ConfigWrite is one write of config.toml.
type ConfigWrite struct {
	Edits []ConfigChange
	// FilePath, if set, must name the server's config.toml.
	FilePath string
	// ExpectedVersion, if set, must be the file's version.
	ExpectedVersion string
}

// ConfigChange sets (Value nil: removes) the dotted key KeyPath; Upsert
// merges a table value into the table there.
type ConfigChange struct {
	KeyPath string
	Value   any
	Upsert  bool
}

// ConfigWritten is a done write.
type ConfigWritten struct {
	Path, Version string
	// Overridden is the first edited key that a layer above the file
	// sets otherwise (nil: none).
	Overridden *ConfigOverride
}

// ConfigOverride is a written key whose effective value comes from a -c
// override of the server (Layer "sessionFlags") or its selected profile
// (Layer "profile", Profile named).
type ConfigOverride struct {
	KeyPath, Layer, Profile string
	// LayerVersion is the overriding layer's version.
	LayerVersion string
	Value        any
}

// ConfigWriteError is a refused write: Code is Codex's
// config_write_error_code (configValidationError, configVersionConflict,
// configLayerReadonly).
type ConfigWriteError struct {
	Code    string
	Message string
}

func (e *ConfigWriteError) Error() string { return e.Message }

func (c *conn) configValueWrite(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p protocol.ConfigValueWriteParams
	if err := decodeParams(raw, &p, "keyPath", "mergeStrategy"); err != nil {
		return nil, err
	}
	if !hasField(raw, "value") {
		return nil, invalidRequest("Invalid request: missing field `value`")
	}
	return c.writeConfig([]protocol.ConfigEdit{p.ConfigEdit}, p.ConfigWriteTarget)
}

func (c *conn) configBatchWrite(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p protocol.ConfigBatchWriteParams
	if err := decodeParams(raw, &p, "edits"); err != nil {
		return nil, err
	}
	return c.writeConfig(p.Edits, p.ConfigWriteTarget)
}

func (c *conn) writeConfig(edits []protocol.ConfigEdit, target protocol.ConfigWriteTarget) (*result, error) {
	w := ConfigWrite{FilePath: deref(target.FilePath), ExpectedVersion: deref(target.ExpectedVersion)}
	for i, e := range edits {
		ch, err := configChange(e)
		if err != nil {
			if len(edits) > 1 {
				err.Message = fmt.Sprintf("edits[%d]: %s", i, err.Message)
			}
			return nil, err
		}
		w.Edits = append(w.Edits, ch)
	}
	writer, ok := c.s.backend.(ConfigWriter)
	if !ok {
		return nil, writeRefused(&ConfigWriteError{Code: "configLayerReadonly", Message: "this server's configuration cannot be written"})
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	done, err := writer.WriteConfig(ctx, w)
	var refused *ConfigWriteError
	if errors.As(err, &refused) {
		return nil, writeRefused(refused)
	}
	if err != nil {
		return nil, internalError("writing the configuration: %v", err)
	}
	res := protocol.ConfigWriteResponse{Status: protocol.WriteOK, Version: done.Version, FilePath: done.Path}
	if o := done.Overridden; o != nil {
		res.Status = protocol.WriteOKOverridden
		res.OverriddenMetadata = overriddenMetadata(o, done.Path)
	}
	return &result{value: res}, nil
}

// configChange reads one edit.
func configChange(e protocol.ConfigEdit) (ConfigChange, *rpcError) {
	ch := ConfigChange{KeyPath: e.KeyPath}
	switch e.MergeStrategy {
	case "upsert":
		ch.Upsert = true
	case "replace":
	default:
		return ch, invalidRequest("Invalid request: unknown variant `%s`, expected `replace` or `upsert`", e.MergeStrategy)
	}
	if len(e.Value) > 0 {
		d := json.NewDecoder(bytes.NewReader(e.Value))
		d.UseNumber() // integers stay integers, however large
		if err := d.Decode(&ch.Value); err != nil {
			return ch, invalidRequest("Invalid request: value: %v", err)
		}
	}
	return ch, nil
}

func overriddenMetadata(o *ConfigOverride, file string) *protocol.OverriddenMetadata {
	layer := protocol.ConfigLayerSource{Type: "sessionFlags"}
	msg := fmt.Sprintf("%s was written, but this server runs with a -c override of it, which stays in effect until the server restarts without it", o.KeyPath)
	if o.Layer == "profile" {
		layer = protocol.ConfigLayerSource{Type: "user", File: file, Profile: &o.Profile}
		msg = fmt.Sprintf("%s was written, but the selected profile %q sets it, and the profile's value is in effect", o.KeyPath, o.Profile)
	}
	return &protocol.OverriddenMetadata{Message: msg, EffectiveValue: o.Value,
		OverridingLayer: protocol.ConfigLayerMetadata{Name: layer, Version: o.LayerVersion}}
}

// writeRefused is a refused write as Codex's server reports it.
func writeRefused(e *ConfigWriteError) *rpcError {
	return &rpcError{Code: codeInvalidRequest, Message: e.Message, Data: protocol.ConfigWriteErrorData{ConfigWriteErrorCode: e.Code}}
}

// skillsConfigWrite turns a skill on or off in config.toml; the next
// turn's skills follow.
func (c *conn) skillsConfigWrite(_ json.RawMessage, raw json.RawMessage) (*result, error) {
	var p protocol.SkillsConfigWriteParams
	if err := decodeParams(raw, &p, "enabled"); err != nil {
		return nil, err
	}
	name, path := deref(p.Name), deref(p.Path)
	if (name == "") == (path == "") {
		return nil, &rpcError{Code: codeInvalidParams, Message: "skills/config/write requires exactly one of path or name"}
	}
	writer, ok := c.s.backend.(ConfigWriter)
	if !ok {
		return nil, writeRefused(&ConfigWriteError{Code: "configLayerReadonly", Message: "this server's configuration cannot be written"})
	}
	ctx, cancel := c.requestContext()
	defer cancel()
	on, err := writer.SetSkillEnabled(ctx, name, path, *p.Enabled)
	var refused *ConfigWriteError
	if errors.As(err, &refused) {
		return nil, writeRefused(refused)
	}
	if err != nil {
		return nil, internalError("writing the configuration: %v", err)
	}
	return &result{value: protocol.SkillsConfigWriteResponse{EffectiveEnabled: on}}, nil
}

// WriteConfig implements [ConfigWriter] with the Settings' writer.
func (a *TemporalBackend) WriteConfig(ctx context.Context, w ConfigWrite) (ConfigWritten, error) {
	cw, ok := a.Settings.(ConfigWriter)
	if !ok {
		return ConfigWritten{}, &ConfigWriteError{Code: "configLayerReadonly", Message: "this server's configuration cannot be written"}
	}
	return cw.WriteConfig(ctx, w)
}

// SetSkillEnabled implements [ConfigWriter] with the Settings' writer.
func (a *TemporalBackend) SetSkillEnabled(ctx context.Context, name, path string, enabled bool) (bool, error) {
	cw, ok := a.Settings.(ConfigWriter)
	if !ok {
		return false, &ConfigWriteError{Code: "configLayerReadonly", Message: "this server's configuration cannot be written"}
	}
	return cw.SetSkillEnabled(ctx, name, path, enabled)
}

// hasField tells whether a JSON object has the key.
func hasField(raw json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
