package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/interpreter-dev/interpreter/activities/applypatch"
	"github.com/interpreter-dev/interpreter/sandbox"
)

// PatchInput is one apply_patch call.
type PatchInput struct {
	ThreadID string `json:"thread_id"`
	CallID   string `json:"call_id"`
	Cwd      string `json:"cwd"`
	Patch    string `json:"patch"`
	// SandboxMode decides where the patch may write: nowhere under
	// read-only, under the writable roots (minus the protected paths)
	// under workspace-write (also when empty), anywhere inside Cwd under
	// danger-full-access.
	SandboxMode string `json:"sandbox_mode,omitempty"`
	// WritableRoots are configured extra writable roots.
	WritableRoots []string `json:"writable_roots,omitempty"`
	// Unsandboxed applies the patch outside the writable roots: a person
	// approved exactly that.
	Unsandboxed bool `json:"unsandboxed,omitempty"`
}

// FileChange is one file a patch touched.
type FileChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // add | delete | update
}

// PatchOutput is the result the model reads; a patch that does not apply
// is a normal, failed result.
type PatchOutput struct {
	Success bool         `json:"success"`
	Output  string       `json:"output"`
	Changes []FileChange `json:"changes,omitempty"`
	// NeedsApproval is set when the patch would write outside the writable
	// roots (or into a protected path) under workspace-write: nothing was
	// written; a person may approve applying it unsandboxed. Path is the
	// offending file, Diff the whole patch's change for the person to read.
	NeedsApproval bool   `json:"needs_approval,omitempty"`
	Path          string `json:"path,omitempty"`
	Diff          string `json:"diff,omitempty"`
}

// ApplyPatch applies a patch atomically. It is idempotent: the outcome of a
// call is recorded under the call id before the activity returns, and a
// retry of the same call (after a crash between writing the files and
// reporting) returns that record instead of patching twice.
func (a *Activities) ApplyPatch(ctx context.Context, in PatchInput) (*PatchOutput, error) {
	marker := filepath.Join(a.Store.Dir(), "patches", safeName(in.ThreadID), safeName(in.CallID)+".json")
	if b, err := os.ReadFile(marker); err == nil {
		var out PatchOutput
		if json.Unmarshal(b, &out) == nil {
			return &out, nil
		}
	}
	out := a.applyPatch(in)
	if out.NeedsApproval {
		// Nothing was written; the approved run records the outcome.
		return out, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding patch result: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(marker), 0o700); err != nil {
		return nil, fmt.Errorf("recording patch result: %w", err)
	}
	tmp := marker + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return nil, fmt.Errorf("recording patch result: %w", err)
	}
	if err := os.Rename(tmp, marker); err != nil {
		return nil, fmt.Errorf("recording patch result: %w", err)
	}
	return out, nil
}

func (a *Activities) applyPatch(in PatchInput) *PatchOutput {
	p, err := applypatch.Parse(in.Patch)
	if err != nil {
		return &PatchOutput{Output: "patch rejected: " + err.Error()}
	}
	g, err := a.patchGuard(in)
	if err != nil {
		return &PatchOutput{Output: "patch not applied, nothing was changed: " + err.Error()}
	}
	res, err := applypatch.Apply(in.Cwd, p, applypatch.Options{Guard: g.check})
	if g.denied != "" {
		out := &PatchOutput{Path: g.denied, Output: "patch not applied, nothing was changed: " + g.reason}
		if g.mode == sandbox.WorkspaceWrite {
			out.NeedsApproval = true
			if prev, err := applypatch.Preview(in.Cwd, p); err == nil {
				for _, c := range prev.Changes {
					out.Diff += c.Diff
				}
			}
		}
		return out
	}
	if err != nil {
		var msg = err.Error()
		if errors.Is(err, os.ErrPermission) {
			msg = "permission denied: " + msg
		}
		return &PatchOutput{Output: "patch not applied, nothing was changed: " + msg}
	}
	out := &PatchOutput{Success: true, Output: "Success. Updated the following files:\n" + res.Summary}
	for _, c := range res.Changes {
		out.Changes = append(out.Changes, FileChange{Path: c.Path, Kind: c.Kind})
	}
	return out
}

// patchGuard checks every path a patch writes against the sandbox.
type patchGuard struct {
	mode      sandbox.Mode
	roots     []string
	protected []string
	denied    string
	reason    string
}

func (a *Activities) patchGuard(in PatchInput) (*patchGuard, error) {
	g := &patchGuard{mode: sandbox.WorkspaceWrite}
	if in.SandboxMode != "" {
		m, err := sandbox.ParseMode(in.SandboxMode)
		if err != nil {
			return nil, err
		}
		g.mode = m
	}
	if g.mode == sandbox.DangerFullAccess || in.Unsandboxed {
		g.mode = sandbox.DangerFullAccess
		return g, nil
	}
	if g.mode == sandbox.ReadOnly {
		return g, nil
	}
	roots, err := sandbox.WritableRoots(in.Cwd, in.WritableRoots, os.TempDir(), "/tmp")
	if err != nil {
		return nil, err
	}
	g.roots = roots
	for _, r := range roots {
		g.protected = append(g.protected, filepath.Join(r, ".git"))
	}
	if a.Home != "" {
		home := a.Home
		if real, err := filepath.EvalSymlinks(home); err == nil {
			home = real
		}
		g.protected = append(g.protected, home)
	}
	return g, nil
}

// check is the applypatch Guard: abs has its existing parents resolved.
func (g *patchGuard) check(abs string) error {
	deny := func(reason string) error {
		g.denied, g.reason = abs, reason
		return errors.New(reason)
	}
	switch g.mode {
	case sandbox.DangerFullAccess:
		return nil
	case sandbox.ReadOnly:
		return deny(fmt.Sprintf("the sandbox is read-only: nothing may be written (%s)", abs))
	}
	for _, p := range g.protected {
		if sandbox.Within(abs, p) {
			return deny(fmt.Sprintf("%s is inside the protected path %s, which stays read-only", abs, p))
		}
	}
	for _, r := range g.roots {
		if sandbox.Within(abs, r) {
			return nil
		}
	}
	return deny(fmt.Sprintf("%s is outside the writable roots (%s)", abs, strings.Join(g.roots, ", ")))
}
