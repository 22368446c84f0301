package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// reviewTarget is what a review looks at (the protocol's ReviewTarget).
type reviewTarget struct {
	Type         string  `json:"type"`
	Branch       string  `json:"branch"`
	SHA          string  `json:"sha"`
	Title        *string `json:"title"`
	Instructions string  `json:"instructions"`
}

const (
	targetUncommitted = "uncommittedChanges"
	targetBaseBranch  = "baseBranch"
	targetCommit      = "commit"
	targetCustom      = "custom"
)

// parseReviewTarget reads and checks a target, with the errors Codex's
// server gives for the same mistakes.
func parseReviewTarget(raw json.RawMessage) (reviewTarget, error) {
	var t reviewTarget
	if err := decodeParams(raw, &t, "type"); err != nil {
		return t, err
	}
	need := ""
	switch t.Type {
	case targetUncommitted:
	case targetBaseBranch:
		need = "branch"
		t.Branch = strings.TrimSpace(t.Branch)
	case targetCommit:
		need = "sha"
		t.SHA = strings.TrimSpace(t.SHA)
	case targetCustom:
		need = "instructions"
		t.Instructions = strings.TrimSpace(t.Instructions)
	default:
		return t, invalidRequest("Invalid request: unknown variant `%s`, expected one of `%s`, `%s`, `%s`, `%s`",
			t.Type, targetUncommitted, targetBaseBranch, targetCommit, targetCustom)
	}
	if need != "" {
		if err := decodeParams(raw, &struct{}{}, need); err != nil {
			return t, err
		}
	}
	switch {
	case t.Type == targetBaseBranch && t.Branch == "":
		return t, invalidRequest("branch must not be empty")
	case t.Type == targetCommit && t.SHA == "":
		return t, invalidRequest("sha must not be empty")
	case t.Type == targetCustom && t.Instructions == "":
		return t, invalidRequest("instructions must not be empty")
	}
	return t, nil
}

// hint is the target as the enteredReviewMode item names it.
func (t reviewTarget) hint() string {
	switch t.Type {
	case targetBaseBranch:
		return fmt.Sprintf("changes against '%s'", t.Branch)
	case targetCommit:
		short := t.SHA[:min(7, len(t.SHA))]
		if t.title() != "" {
			return fmt.Sprintf("commit %s: %s", short, t.title())
		}
		return "commit " + short
	case targetCustom:
		return t.Instructions
	}
	return "current changes"
}

func (t reviewTarget) title() string {
	if t.Title == nil {
		return ""
	}
	return strings.TrimSpace(*t.Title)
}

// prompt is the review turn's user message: what to review and how to
// see it. mergeBase is the base branch's merge base with HEAD, when the
// server could find it.
func (t reviewTarget) prompt(mergeBase string) string {
	switch t.Type {
	case targetBaseBranch:
		if mergeBase != "" {
			return fmt.Sprintf("Review what the current branch changes compared with the base branch '%s'. "+
				"Their merge base is commit %s; `git diff %s` shows the changes to review. Report prioritized, actionable findings.",
				t.Branch, mergeBase, mergeBase)
		}
		return fmt.Sprintf("Review what the current branch changes compared with the base branch '%s'. "+
			"First find their merge base (`git merge-base HEAD %s`, or the branch's upstream if it has one), "+
			"then read `git diff` against that commit. Report prioritized, actionable findings.", t.Branch, t.Branch)
	case targetCommit:
		what := "commit " + t.SHA
		if t.title() != "" {
			what += fmt.Sprintf(" (%q)", t.title())
		}
		return fmt.Sprintf("Review the changes made by %s; `git show %s` shows them. Report prioritized, actionable findings.", what, t.SHA)
	case targetCustom:
		return t.Instructions
	}
	return "Review the uncommitted changes in this repository: staged, unstaged and untracked files " +
		"(`git status`, `git diff`, `git diff --staged`). Report prioritized, actionable findings."
}

// mergeBase asks git, in the thread's directory and read-only, for the
// merge base of HEAD and branch ("" if there is no branch or git cannot
// tell: the prompt then asks the model to find it).
func (c *conn) mergeBase(ctx context.Context, cwd, branch string) string {
	if branch == "" || cwd == "" {
		return ""
	}
	res, err := c.s.backend.Exec(ctx, ExecRequest{Command: []string{"git", "merge-base", "HEAD", branch}, Cwd: cwd,
		SandboxMode: "read-only", Timeout: 10 * time.Second, OutputCap: 4096})
	if err != nil || res.ExitCode != 0 {
		return ""
	}
	sha := strings.TrimSpace(res.Stdout)
	if len(sha) < 7 || strings.ContainsAny(sha, " \n") {
		return ""
	}
	return sha
}
