package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/interpreter-dev/interpreter/activities/applypatch"
)

// PatchInput is one apply_patch call.
type PatchInput struct {
	ThreadID string `json:"thread_id"`
	CallID   string `json:"call_id"`
	Cwd      string `json:"cwd"`
	Patch    string `json:"patch"`
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
	out := applyPatch(in)
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

func applyPatch(in PatchInput) *PatchOutput {
	p, err := applypatch.Parse(in.Patch)
	if err != nil {
		return &PatchOutput{Output: "patch rejected: " + err.Error()}
	}
	res, err := applypatch.Apply(in.Cwd, p, applypatch.Options{})
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
