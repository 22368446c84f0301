package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/interpreter-dev/interpreter/sandbox"
)

// ApprovalNotice is a request for a person's decision, as recorded and
// sent to the configured notifier.
type ApprovalNotice struct {
	ThreadID    string `json:"thread_id"`
	TurnID      string `json:"turn_id"`
	ItemID      string `json:"item_id"`
	Kind        string `json:"kind"`
	Command     string `json:"command,omitempty"`
	Cwd         string `json:"cwd,omitempty"`
	Diff        string `json:"diff,omitempty"`
	Reason      string `json:"reason"`
	Unsandboxed bool   `json:"unsandboxed,omitempty"`
	// Answer is how to decide: `interpreter approve THREAD ITEM --decision ...`.
	Answer   string `json:"answer"`
	Deadline string `json:"deadline,omitempty"`
}

// NotifyInput is one NotifyApproval call.
type NotifyInput struct {
	Notice ApprovalNotice `json:"notice"`
	// NotifyCommand runs with the notice as JSON in its last argument.
	NotifyCommand []string `json:"notify_command,omitempty"`
	// WebhookURL receives the notice as a JSON POST.
	WebhookURL string `json:"webhook_url,omitempty"`
}

// NotifyApproval records that an approval waits (a JSON file under the
// store's approvals/ directory, one per item) and, when configured, tells
// a person: it runs the notify command and posts to the webhook. Waiting
// for the decision is the workflow's business; this returns at once.
func (a *Activities) NotifyApproval(ctx context.Context, in NotifyInput) error {
	b, err := json.Marshal(in.Notice)
	if err != nil {
		return fmt.Errorf("encoding the approval notice: %w", err)
	}
	dir := filepath.Join(a.Store.Dir(), "approvals", safeName(in.Notice.ThreadID))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("recording the approval: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, safeName(in.Notice.ItemID)+".json"), b, 0o600); err != nil {
		return fmt.Errorf("recording the approval: %w", err)
	}
	var errs []error
	if len(in.NotifyCommand) > 0 {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		argv := append(append([]string(nil), in.NotifyCommand...), string(b))
		cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
		cmd.Env = sandbox.FilterEnv(os.Environ(), sandbox.EnvPolicy{})
		if out, err := cmd.CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("notify_command %s: %v: %s", in.NotifyCommand[0], err, bytes.TrimSpace(out)))
		}
	}
	if in.WebhookURL != "" {
		if err := a.postWebhook(ctx, in.WebhookURL, b); err != nil {
			errs = append(errs, fmt.Errorf("webhook_url: %w", err))
		}
	}
	return errors.Join(errs...)
}

func (a *Activities) postWebhook(ctx context.Context, url string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	hc := a.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}
