package harness

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Core tools are what every harness's tools map onto. Each is one kind of
// durable tool activity: shell runs a command (Exec), apply_patch applies a
// Codex patch (ApplyPatch), the file tools run in FileTool, and the plan is
// kept by the workflow itself.
const (
	ToolShell = "shell"
	ToolPatch = "apply_patch"
	ToolPlan  = "update_plan"
	ToolRead  = "read"
	ToolWrite = "write"
	ToolEdit  = "edit"
	ToolList  = "list"
	ToolGlob  = "glob"
	ToolGrep  = "grep"
	// ToolViewImage shows the model a picture file of the workspace.
	ToolViewImage = "view_image"
	// ToolExecCommand starts a unified-exec session: a command that may
	// go on running after the call, which ToolWriteStdin talks to.
	ToolExecCommand = "exec_command"
	ToolWriteStdin  = "write_stdin"
)

// CoreTools lists the core tools in documentation order.
var CoreTools = []string{ToolShell, ToolExecCommand, ToolWriteStdin, ToolRead, ToolWrite, ToolEdit, ToolPatch, ToolList, ToolGlob, ToolGrep, ToolPlan, ToolViewImage}

// IsFileTool reports whether a core tool runs in the FileTool activity.
func IsFileTool(tool string) bool {
	switch tool {
	case ToolRead, ToolWrite, ToolEdit, ToolList, ToolGlob, ToolGrep:
		return true
	}
	return false
}

// Skill is one entry of the skills listing a harness may render in its
// system prompt.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`
}

// Env is what a system prompt may mention about the session.
type Env struct {
	// Model is the model the request goes to.
	Model                 string `json:"Model,omitempty"`
	Cwd                   string `json:"Cwd"`
	Shell                 string `json:"Shell"`
	SandboxMode           string `json:"SandboxMode"`
	ApprovalPolicy        string `json:"ApprovalPolicy"`
	Date                  string `json:"Date"`
	BaseInstructions      string `json:"BaseInstructions"`
	DeveloperInstructions string `json:"DeveloperInstructions"`
	// NoGuidance turns the harness_guidance reliability block off (it is on
	// by default for the harnesses that have one).
	NoGuidance bool `json:"NoGuidance,omitempty"`
	// Skills are listed in the system prompt, each harness in its own
	// format; nothing is rendered when there are none.
	Skills []Skill `json:"Skills,omitempty"`
}

// ToolSpec is a function tool as offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	// Parameters is a JSON Schema object (see [Object] for one whose
	// properties keep their order on the wire).
	Parameters map[string]any
	// Core is the core tool this tool maps onto ("" when it maps onto none
	// and calling it only gets the model an explanation).
	Core string
}

// Edit is one exact string replacement.
type Edit struct {
	Old string `json:"old"`
	New string `json:"new"`
	All bool   `json:"all,omitempty"`
}

// Invocation is a tool call decoded into one of the core tools. A call that
// could not be decoded has Error set: the model is told, nothing runs.
type Invocation struct {
	Tool string `json:"tool"`
	// Shell.
	Command   []string `json:"command,omitempty"`
	Workdir   string   `json:"workdir,omitempty"`
	TimeoutMs int64    `json:"timeout_ms,omitempty"`
	// Escalate: the model asks to run the command without the sandbox,
	// saying why in Justification (needs a person's approval).
	Escalate      bool   `json:"escalate,omitempty"`
	Justification string `json:"justification,omitempty"`
	// PrefixRule is the command prefix an escalated command asks to be
	// approved for the rest of the session.
	PrefixRule []string `json:"prefix_rule,omitempty"`

	// Unified exec (exec_command, write_stdin). Script is the command
	// line run by Shell ("" : the default), as a login shell unless Login
	// says otherwise; YieldMs and MaxTokens are nil when not given.
	Script    string `json:"script,omitempty"`
	Shell     string `json:"shell,omitempty"`
	Login     *bool  `json:"login,omitempty"`
	TTY       bool   `json:"tty,omitempty"`
	YieldMs   *int64 `json:"yield_ms,omitempty"`
	MaxTokens *int64 `json:"max_tokens,omitempty"`
	SessionID int64  `json:"session_id,omitempty"`
	Chars     string `json:"chars,omitempty"`
	// Patch.
	Patch string `json:"patch,omitempty"`
	// Plan.
	Explanation string     `json:"explanation,omitempty"`
	Plan        []PlanStep `json:"plan,omitempty"`

	// File tools. Path is a file (read, write, edit) or a directory (list,
	// glob, grep; "" is the working directory); relative paths are taken
	// from the working directory.
	Path string `json:"path,omitempty"`
	// Offset is the first line to read, 1-based (0: the first line;
	// negative: counted from the end). For grep and glob, results to skip.
	Offset int `json:"offset,omitempty"`
	// Limit caps the lines read or the results listed (0: the default).
	Limit int `json:"limit,omitempty"`
	// Content is the text to write; Append adds it at the end of the file.
	Content string `json:"content,omitempty"`
	Append  bool   `json:"append,omitempty"`
	// Edits are applied in order, all or nothing.
	Edits []Edit `json:"edits,omitempty"`
	// Pattern is a glob (glob) or a regular expression (grep).
	Pattern string `json:"pattern,omitempty"`
	// Include keeps only files whose name or relative path matches this
	// glob (grep).
	Include    string `json:"include,omitempty"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	// OutputMode of grep: "content" (matching lines, the default),
	// "files" (paths of matching files) or "count".
	OutputMode string `json:"output_mode,omitempty"`
	// Context lines around each grep match.
	Context int `json:"context,omitempty"`
	// Ignore are globs of names that list leaves out.
	Ignore []string `json:"ignore,omitempty"`

	// External tools: the offered name and the call's raw JSON arguments.
	External  string `json:"external,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	// Agent are the decoded arguments of a sub-agent tool's call.
	Agent *AgentArgs `json:"agent,omitempty"`

	Error string `json:"error,omitempty"`
}

// Grep output modes.
const (
	GrepContent = "content"
	GrepFiles   = "files"
	GrepCount   = "count"
)

// PlanStep is one line of a plan.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// Plan step statuses.
const (
	StepPending    = "pending"
	StepInProgress = "in_progress"
	StepCompleted  = "completed"
)

// Info describes a harness for routing and for `interpreter harness list`.
type Info struct {
	Name        string
	Description string
	// Wires are the wire APIs this harness can be sent over, preferred
	// first. See [Resolve].
	Wires []string
	// TextLoop harnesses offer no tool schema: the model writes one
	// command in a fenced block, and its output comes back as the next user
	// message. Such a harness implements [Finisher].
	TextLoop bool
	// ReasoningContent sends the model's reasoning back on assistant chat
	// messages as reasoning_content, as Kimi, DeepSeek and Qwen thinking
	// models expect.
	ReasoningContent bool
	// ReasoningPlaceholder is sent as reasoning_content on assistant chat
	// messages with tool calls that have no reasoning of their own
	// (DeepSeek thinking models expect one there).
	ReasoningPlaceholder string
	// EmptyToolCallContent sends content "" (not null) on assistant chat
	// messages that only carry tool calls.
	EmptyToolCallContent bool
	// ParallelToolCalls lets the model ask for several tool calls in one
	// answer (Responses and Chat parallel_tool_calls), as the emulated CLI
	// does; calls that only read then run side by side.
	ParallelToolCalls bool
	// StartupContext asks the turn workflow to gather the start-up context
	// (date, OS, working directory listing) once, at the start of a thread,
	// and hand it to the harness's [Preluder].
	StartupContext bool
}

// Harness renders a conversation for a model family and decodes its tool
// calls. Implementations are pure.
type Harness interface {
	Info() Info
	// Instructions is the system prompt.
	Instructions(env Env) string
	// Tools are offered to the model (none for a text loop).
	Tools() []ToolSpec
	// Decode maps a tool call onto a core tool. Unknown tools and bad
	// arguments come back with Error set.
	Decode(call ToolCall) Invocation
}

// OutputFormatter is implemented by harnesses that present tool output in
// their own way; text is the output as the workflow wrote it.
type OutputFormatter interface {
	FormatOutput(e Entry) string
}

// Finisher is implemented by harnesses that find the model's actions in its
// text (text loops). Finish returns the answer with tool calls added; conv
// is the conversation the answer replies to, and callID is a unique id for
// a call this answer makes.
type Finisher interface {
	Finish(conv []Entry, ans Answer, callID string) Answer
}

// StartupInfo is the start-up context the turn workflow gathers for
// harnesses with [Info.StartupContext].
type StartupInfo struct {
	Date    string `json:"date"`
	OS      string `json:"os"`
	Cwd     string `json:"cwd"`
	Listing string `json:"listing"`
}

// Preluder is implemented by harnesses that open a conversation with a
// context exchange. The entries are stored at the start of the thread's
// transcript, so later requests send the same bytes (and hit the cache).
type Preluder interface {
	Prelude(s StartupInfo) []Entry
}

var (
	registry = map[string]Harness{}
	names    []string // sorted; kept beside the map so no caller iterates a map
)

// Register adds a harness; harness packages call it from init.
func Register(h Harness) {
	name := h.Info().Name
	if _, ok := registry[name]; !ok {
		i := sort.SearchStrings(names, name)
		names = append(names[:i], append([]string{name}, names[i:]...)...)
	}
	registry[name] = h
}

// Lookup finds a harness by name; the error lists the known names.
func Lookup(name string) (Harness, error) {
	if h, ok := registry[name]; ok {
		return h, nil
	}
	return nil, fmt.Errorf("unknown harness %q (known: %s)", name, strings.Join(names, ", "))
}

// Names lists the registered harnesses, sorted.
func Names() []string { return append([]string(nil), names...) }

// DecodeArgs unmarshals tool arguments strictly, so a mistyped field is
// reported to the model instead of silently ignored.
func DecodeArgs(raw string, v any) error {
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("invalid arguments: unexpected data after the JSON object")
	}
	return nil
}

// Unknown is the Invocation for a tool the harness does not offer.
func Unknown(name string, tools []ToolSpec) Invocation {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return Invocation{Tool: name, Error: fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(names, ", "))}
}

// Invalid is the Invocation for a call whose arguments do not fit.
func Invalid(tool, format string, args ...any) Invocation {
	return Invocation{Tool: tool, Error: "invalid arguments: " + fmt.Sprintf(format, args...)}
}
