package activities

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/harness"
)

// DefaultCompactPrompt asks the model for the summary that replaces a
// thread's older context.
const DefaultCompactPrompt = `Context checkpoint: this conversation is about to be compacted to fit the model's context window, and the assistant that continues it will see only the recent user messages and what you write now.

Write a handoff summary of the whole conversation so far for that assistant:
- what the user wants, with every constraint and preference they stated;
- what has been done: commands run and what they showed, files created or changed, tests and their results, errors met and how they were handled;
- decisions taken and why;
- the current state of the work and what remains, as concrete next steps.

Keep exact file paths, commands, identifiers, numbers and error messages that still matter. Answer with the summary only, in plain text, and call no tools.`

// SummaryPrefix starts the message that holds a compaction summary.
const SummaryPrefix = "[Earlier parts of this conversation were compacted to fit the context window. Summary of everything before this point:]\n\n"

// DefaultCompactKeepTokens is how many tokens of the most recent user
// messages a compacted transcript keeps word for word.
const DefaultCompactKeepTokens = 20000

// ErrTypeCompaction marks a compaction that could not produce a summary.
const ErrTypeCompaction = "CompactionError"

// CompactInput asks for a thread's transcript to be compacted.
type CompactInput struct {
	ThreadID string       `json:"thread_id"`
	TurnID   string       `json:"turn_id,omitempty"`
	Model    string       `json:"model"`
	Provider ProviderSpec `json:"provider"`
	Harness  string       `json:"harness"`
	Env      harness.Env  `json:"env"`
	// Transcript is the manifest to compact.
	Transcript string `json:"transcript"`
	// Fold are entries not in the transcript yet (tool outputs the model
	// has not read) that the summary covers too.
	Fold []harness.Entry `json:"fold,omitempty"`
	// Prompt asks for the summary ("" is DefaultCompactPrompt).
	Prompt string `json:"prompt,omitempty"`
	// KeepTokens bounds the recent user messages kept word for word
	// (0 is DefaultCompactKeepTokens).
	KeepTokens int `json:"keep_tokens,omitempty"`
}

// CompactOutput is the compacted transcript.
type CompactOutput struct {
	Transcript    string        `json:"transcript"`
	Summary       string        `json:"summary"`
	Usage         harness.Usage `json:"usage"`
	EntriesBefore int           `json:"entries_before"`
	EntriesAfter  int           `json:"entries_after"`
	// TokensAfter estimates the compacted transcript's size.
	TokensAfter int64 `json:"tokens_after"`
}

// estimateTokens is the usual four bytes per token.
func estimateTokens(s string) int { return (len(s) + 3) / 4 }

// Compact asks the model to summarize a transcript and writes a new
// manifest: the most recent user messages (within a token budget) followed
// by the summary, as a user message. The old manifest stays in the store.
// Retrying is safe: nothing changes but new content-addressed blobs.
func (a *Activities) Compact(ctx context.Context, in CompactInput) (*CompactOutput, error) {
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
	all := append(append([]harness.Entry{}, prior...), in.Fold...)
	prompt := in.Prompt
	if strings.TrimSpace(prompt) == "" {
		prompt = DefaultCompactPrompt
	}
	conv := append(append([]harness.Entry{}, all...), harness.Entry{Kind: harness.KindUser, Text: prompt})
	if conv, err = a.withImageData(conv); err != nil {
		return nil, err
	}
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
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("wire_api %q of provider %q is not supported here (use responses or chat)", in.Provider.WireAPI, in.Provider.ID), ErrTypeConfig, nil)
	}
	if err != nil {
		return nil, classify(in.Provider, err)
	}
	summary := strings.TrimSpace(ans.Message())
	if summary == "" {
		return nil, temporal.NewNonRetryableApplicationError("the model answered the compaction request without a summary", ErrTypeCompaction, nil)
	}
	kept := recentUserMessages(all, in.KeepTokens)
	entries := append(kept, harness.Entry{Kind: harness.KindUser, Text: SummaryPrefix + summary})
	ref, err := a.Store.Append(nil, entries)
	if err != nil {
		return nil, err
	}
	out := &CompactOutput{Transcript: ref, Summary: summary, Usage: ans.Usage, EntriesBefore: len(all), EntriesAfter: len(entries)}
	for _, e := range entries {
		out.TokensAfter += int64(estimateTokens(e.Text))
	}
	return out, nil
}

// recentUserMessages picks the newest user messages, oldest first, within
// a token budget; earlier summaries are left out (the new one covers them).
// When even the newest does not fit, its end is kept.
func recentUserMessages(entries []harness.Entry, budget int) []harness.Entry {
	if budget <= 0 {
		budget = DefaultCompactKeepTokens
	}
	var kept []harness.Entry
	used := 0
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Kind != harness.KindUser || strings.HasPrefix(e.Text, SummaryPrefix) {
			continue
		}
		n := estimateTokens(e.Text)
		if used+n > budget {
			if len(kept) == 0 {
				cut := len(e.Text) - budget*4
				for cut < len(e.Text) && !utf8.RuneStart(e.Text[cut]) {
					cut++
				}
				e.Text = "[…]" + e.Text[cut:]
				kept = append(kept, e)
			}
			break
		}
		used += n
		kept = append(kept, e)
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	return kept
}
