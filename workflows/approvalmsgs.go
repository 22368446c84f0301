package workflows

import "time"

// Approval is a tool call waiting for a person: what would run, where,
// why it asks, and how to answer.
type Approval struct {
	ThreadID string `json:"thread_id"`
	TurnID   string `json:"turn_id"`
	ItemID   string `json:"item_id"`
	// Kind is "command" or "patch".
	Kind    string `json:"kind"`
	Command string `json:"command,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// Diff is the change a patch would make (cut when very long).
	Diff   string `json:"diff,omitempty"`
	Reason string `json:"reason"`
	// Unsandboxed: approving runs it without the sandbox.
	Unsandboxed bool      `json:"unsandboxed,omitempty"`
	RequestedAt time.Time `json:"requested_at"`
	// Deadline, when set, is when DefaultDecision applies.
	Deadline        *time.Time `json:"deadline,omitempty"`
	DefaultDecision string     `json:"default_decision,omitempty"`
	// Answer tells a person how to decide from a shell.
	Answer string `json:"answer"`
	// Decision is set on approval.resolved; Note says how it came.
	Decision string `json:"decision,omitempty"`
	Note     string `json:"note,omitempty"`
}

// ApprovalDecision is the payload of [UpdateDecideApproval]. ThreadID and
// ItemID must name the pending approval exactly.
type ApprovalDecision struct {
	ThreadID string `json:"thread_id"`
	ItemID   string `json:"item_id"`
	// Decision is approve, approve_for_session, deny or abort.
	Decision string `json:"decision"`
}

// ApprovalResult answers [UpdateDecideApproval].
type ApprovalResult struct {
	ItemID   string `json:"item_id"`
	Decision string `json:"decision"`
}

// SessionApproval is an "approve for the session": commands with the same
// prefix ([sandbox.CommandPrefix]) run without asking for the rest of the
// thread; Unsandboxed ones also without the sandbox.
type SessionApproval struct {
	Prefix      string `json:"prefix"`
	Unsandboxed bool   `json:"unsandboxed,omitempty"`
}
