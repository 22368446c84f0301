package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/harness"
)

// Memory across threads works in two phases. Phase 1 (ExtractMemory): once
// a thread is idle, the model reads it and writes a raw memory, a short
// summary and a few durable facts, into <MemoryDir>/raw. Phase 2
// (ConsolidateMemories, one at a time): the raw memories are merged into
// <MemoryDir>/MEMORY.md, ranked by use (how many threads stated a fact) and
// dropped when unused for max_unused_days. New threads get the top of
// MEMORY.md in their instructions (LoadMemory).

// MemoryFile is the consolidated memory, in MemoryDir.
const MemoryFile = "MEMORY.md"

// DefaultExtractPrompt asks for a thread's raw memory.
const DefaultExtractPrompt = `Memory extraction: this conversation is over for now. Note what is worth remembering in future, unrelated conversations with the same user: lasting preferences, conventions of their projects, facts about their machine and tools, recurring commands, and lessons from mistakes. Leave out what only mattered for this task, and never write secrets (keys, tokens, passwords).

Answer in exactly this form, with no tools:
SUMMARY: <one line on what this conversation was about>
- <one fact per line, self-contained>

Answer NONE if nothing is worth keeping.`

// MemoryInput asks for a thread's raw memory.
type MemoryInput struct {
	ThreadID   string       `json:"thread_id"`
	Model      string       `json:"model"`
	Provider   ProviderSpec `json:"provider"`
	Harness    string       `json:"harness"`
	Env        harness.Env  `json:"env"`
	Transcript string       `json:"transcript"`
}

// MemoryOutput says what phase 1 wrote.
type MemoryOutput struct {
	File     string        `json:"file,omitempty"`
	Summary  string        `json:"summary,omitempty"`
	Facts    int           `json:"facts"`
	Redacted int           `json:"redacted,omitempty"`
	Usage    harness.Usage `json:"usage"`
}

// rawMemory is one file of <MemoryDir>/raw.
type rawMemory struct {
	ThreadID string    `json:"thread_id"`
	Created  time.Time `json:"created"`
	Summary  string    `json:"summary"`
	Facts    []string  `json:"facts"`
}

func (a *Activities) memoryDir() (string, error) {
	if a.MemoryDir == "" {
		return "", temporal.NewNonRetryableApplicationError("this worker has no memory directory", ErrTypeConfig, nil)
	}
	return a.MemoryDir, nil
}

// ExtractMemory is phase 1: it asks the model what of a thread is worth
// remembering, redacts secrets, and writes the raw memory. The file is
// named after the thread and the transcript, so a retry rewrites the same
// file.
func (a *Activities) ExtractMemory(ctx context.Context, in MemoryInput) (*MemoryOutput, error) {
	dir, err := a.memoryDir()
	if err != nil {
		return nil, err
	}
	h, err := harness.Lookup(in.Harness)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeConfig, nil)
	}
	key, base, err := a.credentials(in.Provider)
	if err != nil {
		return nil, err
	}
	client := a.openaiClient(in.Provider, base, key)
	prior, _, err := a.Store.Transcript(in.Transcript)
	if err != nil {
		return nil, err
	}
	conv := append(append([]harness.Entry{}, prior...), harness.Entry{Kind: harness.KindUser, Text: DefaultExtractPrompt})
	req := harness.Request{Model: in.Model, Harness: h, Env: in.Env, Conversation: conv, CacheKey: in.ThreadID}
	stop := a.keepHeartbeating(ctx)
	defer stop()
	var ans harness.Answer
	switch in.Provider.WireAPI {
	case WireResponses, "":
		ans, err = streamResponses(ctx, client, req)
	case WireChat:
		ans, err = streamChat(ctx, client, req)
	default:
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("wire_api %q is not supported here", in.Provider.WireAPI), ErrTypeConfig, nil)
	}
	if err != nil {
		return nil, classify(in.Provider, err)
	}
	summary, facts := parseRawMemory(ans.Message())
	out := &MemoryOutput{Usage: ans.Usage}
	var n int
	summary, n = Redact(summary)
	out.Redacted += n
	for i := range facts {
		facts[i], n = Redact(facts[i])
		out.Redacted += n
	}
	if summary == "" && len(facts) == 0 {
		return out, nil
	}
	sum := sha256.Sum256([]byte(in.Transcript))
	name := safeName(in.ThreadID) + "-" + hex.EncodeToString(sum[:6]) + ".json"
	b, err := json.MarshalIndent(rawMemory{ThreadID: in.ThreadID, Created: time.Now().UTC(), Summary: summary, Facts: facts}, "", "  ")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "raw", name)
	if err := writeFileAtomic(path, b); err != nil {
		return nil, err
	}
	out.File, out.Summary, out.Facts = path, summary, len(facts)
	return out, nil
}

// parseRawMemory reads the SUMMARY line and the bullet lines of an answer.
func parseRawMemory(s string) (summary string, facts []string) {
	if strings.TrimSpace(s) == "NONE" {
		return "", nil
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(strings.ToUpper(line), "SUMMARY:"):
			summary = strings.TrimSpace(line[len("SUMMARY:"):])
		case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "):
			if f := oneLineFact(line[2:]); f != "" {
				facts = append(facts, f)
			}
		}
	}
	return summary, facts
}

func oneLineFact(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	// A fact must not look like our metadata comments.
	s = strings.ReplaceAll(s, "<!--", "<! --")
	if len(s) > 500 {
		s = s[:500]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`),
	regexp.MustCompile(`\b(sk|rk|pk)-[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`),
	regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9._~+/-]{16,}=*`),
}

// secretAssignment is NAME=value or NAME: value where NAME says secret.
var secretAssignment = regexp.MustCompile(`(?i)\b([A-Z0-9_]*(?:api[_-]?key|secret|token|passw(?:or)?d|credential)[A-Z0-9_]*)(\s*[:=]\s*)("[^"]*"|'[^']*'|\S+)`)

// Redact replaces what looks like a secret with [REDACTED] and says how
// many it replaced.
func Redact(s string) (string, int) {
	n := 0
	for _, re := range secretPatterns {
		s = re.ReplaceAllStringFunc(s, func(string) string { n++; return "[REDACTED]" })
	}
	s = secretAssignment.ReplaceAllStringFunc(s, func(m string) string {
		parts := secretAssignment.FindStringSubmatch(m)
		if parts[3] == "[REDACTED]" {
			return m
		}
		n++
		return parts[1] + parts[2] + "[REDACTED]"
	})
	return s, n
}

// memoryEntry is one line of MEMORY.md.
type memoryEntry struct {
	Text string
	Uses int
	Last time.Time
}

// memoryDoc is MEMORY.md, parsed.
type memoryDoc struct {
	Entries []memoryEntry
	// Merged are the raw memory files already counted.
	Merged map[string]bool
}

var entryMeta = regexp.MustCompile(`^(.*?)\s*<!-- uses=(\d+) last=(\d{4}-\d{2}-\d{2}) -->$`)

const mergedPrefix = "<!-- merged:"

// parseMemory reads MEMORY.md. Entries are "- text <!-- uses=N
// last=YYYY-MM-DD -->" (an entry added by hand without the comment counts
// as used once, now); headings and prose are ignored. Anything else that
// looks like our markup but does not parse makes the file unparsable.
func parseMemory(b []byte, now time.Time) (*memoryDoc, error) {
	if !utf8.Valid(b) {
		return nil, errors.New("not valid UTF-8")
	}
	doc := &memoryDoc{Merged: map[string]bool{}}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, mergedPrefix):
			if !strings.HasSuffix(line, "-->") {
				return nil, fmt.Errorf("line %d: unterminated merged list", i+1)
			}
			for _, f := range strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, mergedPrefix), "-->")) {
				doc.Merged[f] = true
			}
		case strings.HasPrefix(line, "- "):
			text := strings.TrimSpace(line[2:])
			e := memoryEntry{Text: text, Uses: 1, Last: now}
			if strings.Contains(text, "<!--") {
				m := entryMeta.FindStringSubmatch(text)
				if m == nil {
					return nil, fmt.Errorf("line %d: malformed entry metadata: %q", i+1, line)
				}
				uses, err := strconv.Atoi(m[2])
				if err != nil {
					return nil, fmt.Errorf("line %d: bad use count", i+1)
				}
				last, err := time.Parse("2006-01-02", m[3])
				if err != nil {
					return nil, fmt.Errorf("line %d: bad date", i+1)
				}
				e = memoryEntry{Text: strings.TrimSpace(m[1]), Uses: uses, Last: last}
			} else if strings.Contains(text, "-->") {
				return nil, fmt.Errorf("line %d: stray comment end", i+1)
			}
			if e.Text != "" {
				doc.Entries = append(doc.Entries, e)
			}
		case strings.Contains(line, "<!--") || strings.Contains(line, "-->"):
			return nil, fmt.Errorf("line %d: unexpected comment: %q", i+1, line)
		}
	}
	return doc, nil
}

func renderMemory(doc *memoryDoc) []byte {
	var b strings.Builder
	b.WriteString("# Memory\n\nWhat interpreter learned across threads, most used first. Each fact ends with a comment holding how many threads stated it and when one last did. Edit or delete lines freely; a line you add as \"- fact\" counts as used today.\n\n")
	for _, e := range doc.Entries {
		fmt.Fprintf(&b, "- %s <!-- uses=%d last=%s -->\n", e.Text, e.Uses, e.Last.UTC().Format("2006-01-02"))
	}
	names := make([]string, 0, len(doc.Merged))
	for n := range doc.Merged {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "\n%s %s -->\n", mergedPrefix, strings.Join(names, " "))
	return []byte(b.String())
}

func normFact(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.TrimRight(s, ". ")), " "))
}

// ConsolidateInput configures phase 2.
type ConsolidateInput struct {
	MaxUnusedDays int       `json:"max_unused_days"`
	Now           time.Time `json:"now"`
}

// ConsolidateOutput reports phase 2.
type ConsolidateOutput struct {
	File    string `json:"file"`
	Entries int    `json:"entries"`
	Added   int    `json:"added"`
	Dropped int    `json:"dropped"`
	Merged  int    `json:"merged"`
	// Broken is where an unparsable MEMORY.md was kept before it was
	// rebuilt from the raw memories; Problem says what was wrong.
	Broken  string `json:"broken,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// ConsolidateMemories is phase 2: it merges the raw memories not merged
// yet into MEMORY.md, ranks entries by use and drops those unused for
// MaxUnusedDays. MEMORY.md is written whole and atomically, with the list
// of raw files it counts, so a retry does not count one twice. An
// unparsable MEMORY.md is kept beside it and rebuilt from the raw memories.
func (a *Activities) ConsolidateMemories(ctx context.Context, in ConsolidateInput) (*ConsolidateOutput, error) {
	dir, err := a.memoryDir()
	if err != nil {
		return nil, err
	}
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	maxUnused := in.MaxUnusedDays
	if maxUnused <= 0 {
		maxUnused = 30
	}
	path := filepath.Join(dir, MemoryFile)
	out := &ConsolidateOutput{File: path}
	doc := &memoryDoc{Merged: map[string]bool{}}
	if b, err := os.ReadFile(path); err == nil {
		parsed, perr := parseMemory(b, now)
		if perr != nil {
			out.Problem = perr.Error()
			out.Broken = fmt.Sprintf("%s.broken-%s", path, now.UTC().Format("20060102T150405"))
			if err := os.Rename(path, out.Broken); err != nil {
				return nil, fmt.Errorf("keeping the unparsable %s: %w", path, err)
			}
		} else {
			doc = parsed
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	index := map[string]int{}
	for i, e := range doc.Entries {
		index[normFact(e.Text)] = i
	}
	files, _ := filepath.Glob(filepath.Join(dir, "raw", "*.json"))
	sort.Strings(files)
	cutoff := now.AddDate(0, 0, -maxUnused)
	for _, f := range files {
		name := filepath.Base(f)
		var raw rawMemory
		b, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(b, &raw) != nil {
			continue
		}
		if doc.Merged[name] {
			if raw.Created.Before(cutoff) {
				// Counted long ago; its facts live on in MEMORY.md.
				_ = os.Remove(f)
				delete(doc.Merged, name)
			}
			continue
		}
		for _, fact := range raw.Facts {
			k := normFact(fact)
			if k == "" {
				continue
			}
			if i, ok := index[k]; ok {
				doc.Entries[i].Uses++
				if raw.Created.After(doc.Entries[i].Last) {
					doc.Entries[i].Last = raw.Created
				}
				continue
			}
			index[k] = len(doc.Entries)
			doc.Entries = append(doc.Entries, memoryEntry{Text: fact, Uses: 1, Last: raw.Created})
			out.Added++
		}
		doc.Merged[name] = true
		out.Merged++
	}
	kept := doc.Entries[:0]
	for _, e := range doc.Entries {
		if e.Last.Before(cutoff) {
			out.Dropped++
			continue
		}
		kept = append(kept, e)
	}
	doc.Entries = kept
	sort.SliceStable(doc.Entries, func(i, j int) bool {
		if doc.Entries[i].Uses != doc.Entries[j].Uses {
			return doc.Entries[i].Uses > doc.Entries[j].Uses
		}
		return doc.Entries[i].Last.After(doc.Entries[j].Last)
	})
	if err := writeFileAtomic(path, renderMemory(doc)); err != nil {
		return nil, err
	}
	out.Entries = len(doc.Entries)
	return out, nil
}

// MemorySummaryBytes bounds the memory given to a new thread.
const MemorySummaryBytes = 6000

// LoadMemory returns the top of MEMORY.md for a new thread's
// instructions ("" when there is none or it does not parse; consolidation
// reports and rebuilds a broken file).
func (a *Activities) LoadMemory(ctx context.Context) (string, error) {
	dir, err := a.memoryDir()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, MemoryFile))
	if err != nil {
		return "", nil
	}
	doc, err := parseMemory(b, time.Now())
	if err != nil || len(doc.Entries) == 0 {
		return "", nil
	}
	var s strings.Builder
	s.WriteString("Memory from earlier conversations with this user (most used first; it may be out of date, so check before relying on it):\n")
	for _, e := range doc.Entries {
		line := "- " + e.Text + "\n"
		if s.Len()+len(line) > MemorySummaryBytes {
			break
		}
		s.WriteString(line)
	}
	return s.String(), nil
}

func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
