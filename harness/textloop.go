package harness

import (
	"encoding/json"
	"strings"
)

// Names of the calls a text loop makes on the model's behalf. They appear
// in the transcript (never on the wire: text loops offer no tools).
const (
	TextCommandTool  = "text_command"
	TextReminderTool = "text_reminder"
	TextFormatTool   = "text_format_error"
)

// Action is what a text-loop reply asks for.
type Action struct {
	// Command is the shell command to run ("" for none).
	Command string
	// Done: the model declared the task finished; the turn ends.
	Done bool
	// FormatError tells the model its reply could not be read (two
	// commands, bad JSON, ...); nothing runs.
	FormatError string
}

// TextLoop is the machinery shared by the text-loop harnesses (swe-agent,
// mini-swe-agent, terminus-2): the reply is read for one command, which
// runs as a shell command whose output comes back as the next user
// message. A reply with neither a command nor a declared end gets one
// reminder; a second such reply in a row ends the turn.
type TextLoop struct {
	Parse func(text string) Action
	// NoCommand is the reminder.
	NoCommand string
}

// Finish implements [Finisher].
func (l TextLoop) Finish(conv []Entry, ans Answer, callID string) Answer {
	act := l.Parse(ans.Message())
	call := func(name string, args map[string]string) {
		b, _ := json.Marshal(args)
		ans.Entries = append(ans.Entries, Entry{Kind: KindToolCall, CallID: callID, Name: name, Arguments: string(b)})
	}
	switch {
	case act.Command != "":
		call(TextCommandTool, map[string]string{"command": act.Command})
	case act.FormatError != "":
		call(TextFormatTool, map[string]string{"error": act.FormatError})
	case act.Done:
	case !lastWasReminder(conv):
		call(TextReminderTool, map[string]string{})
	}
	return ans
}

// lastWasReminder reports whether the conversation ends with the answer
// to a reminder.
func lastWasReminder(conv []Entry) bool {
	for i := len(conv) - 1; i >= 0; i-- {
		switch conv[i].Kind {
		case KindToolOutput:
			return conv[i].Name == TextReminderTool
		case KindUser:
			return false
		}
	}
	return false
}

// Decode maps the loop's own calls onto core tools.
func (l TextLoop) Decode(call ToolCall) Invocation {
	var args map[string]string
	_ = json.Unmarshal([]byte(call.Arguments), &args)
	switch call.Name {
	case TextCommandTool:
		return Invocation{Tool: ToolShell, Command: ShellCommand(args["command"])}
	case TextReminderTool:
		return Invocation{Tool: ToolShell, Error: l.NoCommand}
	case TextFormatTool:
		return Invocation{Tool: ToolShell, Error: args["error"]}
	}
	return Invocation{Tool: call.Name, Error: "this harness has no tools: write the command in your reply"}
}

// Block is a fenced code block of a reply.
type Block struct {
	Lang string
	Body string
}

// FencedBlocks finds the closed ``` blocks of text, in order.
func FencedBlocks(text string) []Block {
	var out []Block
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		open := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(open, "```") {
			continue
		}
		fence := open[:len(open)-len(strings.TrimLeft(open, "`"))]
		lang := strings.TrimSpace(open[len(fence):])
		if strings.Contains(lang, "`") {
			continue // inline code, not a fence
		}
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == fence {
				out = append(out, Block{Lang: lang, Body: strings.Join(lines[i+1:j], "\n")})
				i = j
				break
			}
		}
	}
	return out
}
