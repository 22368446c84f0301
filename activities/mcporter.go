package activities

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/interpreter-dev/interpreter/activities/skills"
)

// A command job's MCP servers reach its script through mcporter
// (npm package mcporter): a per-run config file, named by the
// MCPORTER_CONFIG variable, which makes mcporter read that file alone.

// MCPorterConfigEnv names the config file for mcporter.
const MCPorterConfigEnv = "MCPORTER_CONFIG"

// mcporterConfig is mcporter's config file: "mcpServers" by name, and
// "imports" empty so that no editor's config (Cursor, Claude, Codex...)
// merges in.
type mcporterConfig struct {
	MCPServers map[string]mcporterServer `json:"mcpServers"`
	Imports    []string                  `json:"imports"`
}

// mcporterServer holds connection facts only: a credential appears as
// a ${VAR} placeholder that mcporter fills from the command's
// environment, never as its value.
type mcporterServer struct {
	Description string            `json:"description,omitempty"`
	BaseURL     string            `json:"baseUrl,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	Command     string            `json:"command,omitempty"`
	Args        []string          `json:"args,omitempty"`
}

// mcporterFile is the config for the servers, as written to disk.
func mcporterFile(servers []skills.MCPDependency) ([]byte, error) {
	c := mcporterConfig{MCPServers: map[string]mcporterServer{}, Imports: []string{}}
	for _, d := range servers {
		s := mcporterServer{Description: d.Description}
		switch d.Transport {
		case skills.TransportStdio:
			s.Command, s.Args = d.Command, d.Args
		case skills.TransportHTTP:
			s.BaseURL = d.URL
			if d.BearerTokenEnvVar != "" {
				s.Headers = map[string]string{"Authorization": "Bearer ${" + d.BearerTokenEnvVar + "}"}
			}
		default:
			return nil, fmt.Errorf("mcp server %q of skill %v: transport %q has no mcporter form", d.Name, d.Skills, d.Transport)
		}
		c.MCPServers[d.Name] = s
	}
	return json.MarshalIndent(c, "", "  ")
}

// runDirs is where command jobs keep their per-run files: one directory
// per run, locked (flock) by the worker running it, so a sweep can tell
// a live run's from one a dead worker left behind.
func (a *Activities) runDirs() string {
	if a.Home != "" {
		return filepath.Join(a.Home, "automations", "runs")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("interpreter-%d", os.Getuid()), "automations", "runs")
}

// runDir is one run's directory, held while the run lasts.
type runDir struct {
	path string
	lock *os.File
}

// openRunDir creates and locks the run's directory (mode 0700).
func (a *Activities) openRunDir(runID string) (*runDir, error) {
	p := filepath.Join(a.runDirs(), safeName(runID))
	if err := os.MkdirAll(p, 0o700); err != nil {
		return nil, fmt.Errorf("creating the run's directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(p, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking the run's directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking the run's directory (another worker runs it?): %w", err)
	}
	return &runDir{path: p, lock: f}, nil
}

// writeConfig writes the run's mcporter config, readable by its owner
// alone.
func (d *runDir) writeConfig(data []byte) (string, error) {
	p := filepath.Join(d.path, "mcporter.json")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("writing the mcporter config: %w", err)
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		return "", fmt.Errorf("writing the mcporter config: %w", err)
	}
	return p, nil
}

// remove deletes the run's directory, then lets go of it.
func (d *runDir) remove() error {
	err := os.RemoveAll(d.path)
	d.lock.Close()
	return err
}

// sweepRunDirs removes the directories of runs no live worker holds
// (their worker died before it could): the config files they hold must
// not outlive their run.
func (a *Activities) sweepRunDirs() {
	entries, err := os.ReadDir(a.runDirs())
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(a.runDirs(), e.Name())
		f, err := os.OpenFile(filepath.Join(p, ".lock"), os.O_RDWR, 0)
		if err != nil {
			if info, serr := e.Info(); errors.Is(err, os.ErrNotExist) && serr == nil && time.Since(info.ModTime()) > time.Minute {
				os.RemoveAll(p) // cut off before it was locked (not one being made now)
			}
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(p)
		}
		f.Close()
	}
}
