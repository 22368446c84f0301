package workflows

import (
	"strings"
	"time"

	"github.com/interpreter-dev/interpreter/activities"
)

// The notices a model reads of its background terminals: a user-role
// message, as Codex's notices of sub-agents are, with the facts as JSON
// in a tag (session, command, how it ended) and the last output after
// it, then one line on what it means.

func bgNotice(s ExecSession, status string, exit *int, tail, line string) string {
	var b strings.Builder
	b.WriteString("<background_terminal_notification>\n{")
	b.WriteString(jsonField("session_id", itoa(s.ID)) + "," + jsonField("command", jsonString(oneLine(s.Command, 300))) + ",")
	b.WriteString(jsonField("status", jsonString(status)))
	if exit != nil {
		b.WriteString("," + jsonField("exit_code", itoa(*exit)))
	}
	b.WriteString("}\n")
	if tail != "" {
		b.WriteString("Last output:\n" + tail)
		if !strings.HasSuffix(tail, "\n") {
			b.WriteString("\n")
		}
	} else {
		b.WriteString("It printed nothing since it was last read.\n")
	}
	b.WriteString("</background_terminal_notification>\n" + line)
	return b.String()
}

// bgExitText: the process exited by itself.
func bgExitText(s ExecSession, out activities.WatchSessionOutput) string {
	code := out.ExitCode
	return bgNotice(s, "exited", &code, out.Tail,
		"A command you left running in the background has exited. Its session is closed: do not call write_stdin for it. Carry on with what its result means for your task.")
}

// bgExpiredText: the idle lifetime ended it.
func bgExpiredText(s ExecSession, out activities.WatchSessionOutput, idle time.Duration) string {
	return bgNotice(s, "ended_idle", nil, out.Tail,
		"This background terminal was ended after "+idle.String()+" without use (background_terminals.idle_timeout); its processes were killed. Start it again if it is still needed.")
}

// bgLostText: the worker process that held it is gone, and the process
// with it.
func bgLostText(s ExecSession, maxTail int) string {
	tail := s.Tail
	if len(tail) > maxTail {
		tail = strings.ToValidUTF8(tail[len(tail)-maxTail:], "")
	}
	return bgNotice(s, "worker_stopped", nil, tail,
		"The worker process that held this background terminal stopped, and its processes ended with it; it was NOT run again. The output above is the last it had shown. Check the state before starting it again.")
}

// bgTerminatedText: a person terminated it (thread/backgroundTerminals).
func bgTerminatedText(s ExecSession) string {
	return bgNotice(s, "terminated", nil, "",
		"A person terminated this background terminal; its processes were killed and its session is closed.")
}

// bgClosedText: the thread's bound closed it.
func bgClosedText(s ExecSession, max int) string {
	return bgNotice(s, "closed", nil, "",
		"This background terminal was closed, the least recently used: at most "+itoa(max)+
			" stay open after a turn (background_terminals.max_per_thread).")
}
