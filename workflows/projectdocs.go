package workflows

import (
	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/harness"
)

// docsRequest asks the skills discovery, which runs on the workspace host
// anyway, for the instructions files too (AGENTS.md, or what the
// harness's CLI reads).
func (t *turn) docsRequest() *activities.DocsRequest {
	cfg := t.in.Config
	h, err := harness.Lookup(cfg.Harness)
	if err != nil {
		return nil
	}
	return &activities.DocsRequest{Files: harness.ProjectDocFiles(h), Fallback: cfg.ProjectDocFallbacks, MaxBytes: cfg.ProjectDocMaxBytes}
}

// showDocs puts the instructions files before the user's prompt, as the
// harness's CLI shows them, when they differ from what the thread showed
// last: a thread sees them once, and again only after they changed.
func (t *turn) showDocs(out *activities.DocsOutput) {
	if out == nil {
		return
	}
	for _, w := range out.Warnings {
		t.warn(w)
	}
	t.st.DocSources = out.Docs.Sources()
	if out.Digest == "" || out.Digest == t.st.DocsDigest {
		return
	}
	h, err := harness.Lookup(t.in.Config.Harness)
	if err != nil {
		return
	}
	text := harness.RenderProjectDocs(h, out.Docs)
	if text == "" || len(t.st.Pending) == 0 {
		return
	}
	t.st.DocsDigest = out.Digest
	n := len(t.st.Pending)
	prompt := t.st.Pending[n-1]
	t.st.Pending = append(t.st.Pending[:n-1:n-1], harness.Entry{Kind: harness.KindUser, Text: text, Context: true}, prompt)
}
