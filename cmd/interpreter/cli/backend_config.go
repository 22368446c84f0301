package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
	"github.com/interpreter-dev/interpreter/frontend/appserver"
)

// The app-server's writes of config.toml (appserver.ConfigWriter). Each
// new thread loads the file again (Resolve), and config/read, model/list
// and skills/list read it again (current), so what a client writes shows
// without a restart.

// loadOptions are the options the server's configuration was loaded with:
// a write is checked against them (its -c overrides, profile and
// strictness).
func (a *appSettings) loadOptions() config.Options {
	return config.Options{Home: a.g.Home, Overrides: append([]string{}, a.g.Config...), Strict: a.g.StrictConfig, Profile: a.g.Profile}
}

// current is the configuration as config.toml now says (the one the
// server started with when the file no longer loads).
func (a *appSettings) current() *config.Config {
	if c, err := a.g.load(nil); err == nil {
		return c
	}
	return a.cfg
}

func (a *appSettings) WriteConfig(_ context.Context, w appserver.ConfigWrite) (appserver.ConfigWritten, error) {
	opts := a.loadOptions()
	path := config.Path(opts.Home)
	if w.FilePath != "" && !samePath(w.FilePath, path) {
		return appserver.ConfigWritten{}, &appserver.ConfigWriteError{Code: config.WriteReadonly,
			Message: "Only writes to the user config are allowed (" + path + ")"}
	}
	edits := make([]config.Edit, len(w.Edits))
	for i, e := range w.Edits {
		edits[i] = config.Edit{KeyPath: e.KeyPath, Value: e.Value, Upsert: e.Upsert}
	}
	done, err := config.WriteEdits(opts, edits, w.ExpectedVersion)
	if err != nil {
		return appserver.ConfigWritten{}, writeError(err)
	}
	out := appserver.ConfigWritten{Path: done.Path, Version: done.Version}
	if len(done.Overridden) > 0 {
		o := done.Overridden[0]
		out.Overridden = &appserver.ConfigOverride{KeyPath: o.KeyPath, Layer: o.Layer, Value: o.Value, Profile: a.g.Profile,
			LayerVersion: config.FileVersion(strings.Join(opts.Overrides, "\n"))}
		if o.Layer == "profile" {
			out.Overridden.Profile, out.Overridden.LayerVersion = a.current().Profile, done.Version
		}
	}
	return out, nil
}

func (a *appSettings) SetSkillEnabled(_ context.Context, name, path string, enabled bool) (bool, error) {
	on, err := config.SetSkillEnabled(a.loadOptions(), name, path, enabled)
	if err != nil {
		return false, writeError(err)
	}
	return on, nil
}

// writeError is a refused write as the app-server reports it.
func writeError(err error) error {
	var we *config.WriteError
	if errors.As(err, &we) {
		return &appserver.ConfigWriteError{Code: we.Code, Message: we.Error()}
	}
	return err
}

// samePath tells whether two paths name one file (symbolic links
// resolved where they exist).
func samePath(a, b string) bool {
	clean := func(p string) string {
		p = filepath.Clean(config.ExpandHome(p))
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	return clean(a) == clean(b)
}

// loadThread loads the configuration for a new thread with a client's
// settings on top (thread/start's config keys, then its model, provider,
// approval policy and sandbox). The Codex keys a client sends that mean
// nothing here (Codex's TUI sends some thirty with every thread) are one
// debug line; the other warnings are printed once each, as for every
// command.
func (a *appSettings) loadThread(s appserver.ThreadSettings) (*config.Config, error) {
	extra := make(map[string]any, len(s.Config)+4)
	for k, v := range s.Config {
		extra[k] = v
	}
	for k, v := range map[string]string{"model": s.Model, "model_provider": s.ModelProvider,
		"approval_policy": s.ApprovalPolicy, "sandbox_mode": s.SandboxMode} {
		if v != "" {
			extra[k] = v
		}
	}
	opts := a.loadOptions()
	opts.Extra = extra
	cfg, err := config.Load(opts)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings() {
		if _, dup := a.g.warned.LoadOrStore(w, true); !dup && a.g.warn != nil {
			fmt.Fprintf(a.g.warn, "interpreter: warning: %s\n", w)
		}
	}
	if quiet := cfg.QuietKeys(); len(quiet) > 0 && a.g.warn != nil {
		slog.New(slog.NewTextHandler(a.g.warn, nil)).Debug("ignoring Codex config keys a client sent that mean nothing here",
			"keys", strings.Join(quiet, ","))
	}
	return cfg, nil
}
