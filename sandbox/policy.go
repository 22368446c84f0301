// Package sandbox owns what a command may do: sandbox modes, approval
// policies, and the pure decision of whether a command runs, needs a
// person's approval, or is refused. It knows nothing of Temporal; the turn
// workflow asks it before every command.
package sandbox

import (
	"fmt"
)

// Mode is a sandbox mode (what a command can touch).
type Mode string

// Sandbox modes.
const (
	ReadOnly         Mode = "read-only"
	WorkspaceWrite   Mode = "workspace-write"
	DangerFullAccess Mode = "danger-full-access"
)

// Policy is an approval policy (when to ask a person).
type Policy string

// Approval policies.
const (
	Untrusted Policy = "untrusted"
	OnFailure Policy = "on-failure"
	OnRequest Policy = "on-request"
	Never     Policy = "never"
)

// ParseMode validates a sandbox mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ReadOnly, WorkspaceWrite, DangerFullAccess:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (valid: read-only, workspace-write, danger-full-access)", s)
}

// ParsePolicy validates an approval policy name.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case Untrusted, OnFailure, OnRequest, Never:
		return p, nil
	}
	return "", fmt.Errorf("unknown approval policy %q (valid: untrusted, on-failure, on-request, never)", s)
}

// Decision is what happens to a command.
type Decision string

// Decisions.
const (
	Run    Decision = "run"
	Ask    Decision = "ask"
	Refuse Decision = "refuse"
)

// Verdict is the decision about one command before it runs.
type Verdict struct {
	Decision Decision
	// Unsandboxed: the command runs (after approval) without the sandbox.
	Unsandboxed bool
	// Reason says why a person is asked, or why the command is refused.
	Reason string
}

// Assess decides, before a command runs, whether it runs, needs a
// person's approval, or is refused, from the approval policy, the sandbox
// mode and whether the model asked to run it without the sandbox
// (escalate, with a justification). Codex's semantics:
//
//   - untrusted: known-safe read-only commands run; everything else asks;
//   - on-failure: commands run in the sandbox; a sandbox denial asks to
//     rerun unsandboxed (decided after the run, see [LikelyDenied]);
//   - on-request: commands run in the sandbox; the model may ask to run
//     one unsandboxed, which asks;
//   - never: nothing asks; an escalation request is refused, failures
//     go back to the model.
//
// Known-dangerous commands (rm -rf, git push --force, sudo, ...) ask
// under every policy but never. An empty policy behaves like never.
// Under danger-full-access there is no sandbox to leave, so an
// escalation request changes nothing.
func Assess(p Policy, m Mode, argv []string, escalate bool, justification string) Verdict {
	if m == DangerFullAccess {
		escalate = false
	}
	if escalate {
		why := "the model asks to run this command without the sandbox"
		if justification != "" {
			why += ": " + justification
		}
		switch p {
		case Untrusted, OnRequest:
			return Verdict{Decision: Ask, Unsandboxed: true, Reason: why}
		case Never, "":
			return Verdict{Decision: Refuse, Reason: "running a command without the sandbox needs a person's approval, and the approval policy is \"never\"; run it inside the sandbox or do without it"}
		}
		// on-failure: run it sandboxed; a denial asks then.
	}
	if p == Never || p == "" {
		return Verdict{Decision: Run}
	}
	if IsKnownDangerous(argv) {
		return Verdict{Decision: Ask, Reason: "known-dangerous command"}
	}
	if p == Untrusted && !IsKnownSafe(argv) {
		return Verdict{Decision: Ask, Reason: "the approval policy \"untrusted\" asks before any command that is not known to be safe"}
	}
	return Verdict{Decision: Run}
}
