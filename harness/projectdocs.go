package harness

import "strings"

// ProjectDoc is one instructions file a turn found (AGENTS.md and its
// kin), with the text as read (cut to the byte bound).
type ProjectDoc struct {
	Path string `json:"path"`
	Text string `json:"text"`
	// Global marks the user's own file (in the home directory), which
	// applies to every project.
	Global bool `json:"global,omitempty"`
}

// ProjectDocs are the instructions files of a turn's working directory:
// the global ones first, then one per directory from the repository root
// down to Cwd.
type ProjectDocs struct {
	Cwd  string       `json:"cwd"`
	Docs []ProjectDoc `json:"docs,omitempty"`
	// Note tells the model what was left out (a file cut at the bound).
	Note string `json:"note,omitempty"`
}

// DocFiles says which instructions files a harness's CLI reads.
type DocFiles struct {
	// Names are tried in order in each directory; the first that exists
	// is read.
	Names []string `json:"names"`
	// Global are the user's own files, tried in order (the first that
	// exists is read): a leading "~/" is the user's home directory, a
	// bare name is in the interpreter home.
	Global []string `json:"global,omitempty"`
}

// ProjectDocser is implemented by harnesses whose CLI reads other files
// than Codex's, or shows them otherwise.
type ProjectDocser interface {
	ProjectDocFiles() DocFiles
	// RenderProjectDocs is the user message that shows the files.
	RenderProjectDocs(d ProjectDocs) string
}

// CodexDocFiles are the files Codex reads: AGENTS.override.md wins over
// AGENTS.md, in the home directory and in each project directory.
var CodexDocFiles = DocFiles{
	Names:  []string{"AGENTS.override.md", "AGENTS.md"},
	Global: []string{"AGENTS.override.md", "AGENTS.md"},
}

// ProjectDocFiles is what harness h reads.
func ProjectDocFiles(h Harness) DocFiles {
	if p, ok := h.(ProjectDocser); ok {
		return p.ProjectDocFiles()
	}
	return CodexDocFiles
}

// RenderProjectDocs is the user message showing d to the model the way
// harness h's CLI shows it ("" when there is nothing to show).
func RenderProjectDocs(h Harness, d ProjectDocs) string {
	if len(d.Docs) == 0 {
		return ""
	}
	if p, ok := h.(ProjectDocser); ok {
		return p.RenderProjectDocs(d)
	}
	return RenderAgentsMD(d)
}

// RenderAgentsMD is Codex's form: one message headed with the working
// directory, the global instructions, a separator, then the project's
// files joined by blank lines, inside an INSTRUCTIONS block.
func RenderAgentsMD(d ProjectDocs) string {
	var global, project []string
	for _, doc := range d.Docs {
		if doc.Global {
			global = append(global, strings.TrimSpace(doc.Text))
		} else {
			project = append(project, doc.Text)
		}
	}
	body := strings.Join(global, "\n\n")
	if len(project) > 0 {
		if body != "" {
			body += "\n\n--- project-doc ---\n\n"
		}
		body += strings.Join(project, "\n\n")
	}
	if d.Note != "" {
		body += "\n\n" + d.Note
	}
	return "# AGENTS.md instructions for " + d.Cwd + "\n\n<INSTRUCTIONS>\n" + body + "\n</INSTRUCTIONS>"
}

// Sources are the paths of the files, in the order shown.
func (d ProjectDocs) Sources() []string {
	var out []string
	for _, doc := range d.Docs {
		out = append(out, doc.Path)
	}
	return out
}
