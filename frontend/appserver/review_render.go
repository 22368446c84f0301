package appserver

import (
	"encoding/json"
	"fmt"
	"strings"
)

// reviewOutput is the JSON object the review instructions ask the model
// for (Codex's review output: findings and an overall verdict).
type reviewOutput struct {
	Findings               []reviewFinding `json:"findings"`
	OverallCorrectness     string          `json:"overall_correctness"`
	OverallExplanation     string          `json:"overall_explanation"`
	OverallConfidenceScore *float64        `json:"overall_confidence_score"`
}

type reviewFinding struct {
	Title           string   `json:"title"`
	Body            string   `json:"body"`
	ConfidenceScore *float64 `json:"confidence_score"`
	Priority        *int     `json:"priority"`
	CodeLocation    struct {
		AbsoluteFilePath string `json:"absolute_file_path"`
		LineRange        struct {
			Start int `json:"start"`
			End   int `json:"end"`
		} `json:"line_range"`
	} `json:"code_location"`
}

// parseReview reads the model's answer as a review: the whole text, or
// failing that the object between its first `{` and last `}` (a model
// that wrapped it in a fence or a sentence). ok is false when neither is
// a review object.
func parseReview(text string) (out reviewOutput, ok bool) {
	if decodeReview(text, &out) {
		return out, true
	}
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i >= 0 && j > i && decodeReview(text[i:j+1], &out) {
		return out, true
	}
	return reviewOutput{}, false
}

func decodeReview(s string, out *reviewOutput) bool {
	var keys map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &keys) != nil {
		return false
	}
	if _, ok := keys["findings"]; !ok {
		if _, ok := keys["overall_explanation"]; !ok {
			return false
		}
	}
	var o reviewOutput
	if json.Unmarshal([]byte(s), &o) != nil {
		return false
	}
	*out = o
	return true
}

// renderReview is the review's text as Codex's clients show it in the
// exitedReviewMode item: the overall explanation, then each finding's
// title, location and body. An answer that is not a review object is
// shown as the model wrote it.
func renderReview(answer string) string {
	out, ok := parseReview(answer)
	if !ok {
		return strings.TrimSpace(answer)
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(out.OverallExplanation))
	if len(out.Findings) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if len(out.Findings) == 1 {
			b.WriteString("Review comment:")
		} else {
			b.WriteString("Full review comments:")
		}
		for _, f := range out.Findings {
			b.WriteString("\n\n")
			b.WriteString(findingText(f))
		}
	}
	if b.Len() == 0 {
		if out.OverallCorrectness != "" {
			return "No findings: " + out.OverallCorrectness + "."
		}
		return "No findings."
	}
	return b.String()
}

// findingText is one finding: "- title — path:start-end", then the body
// indented under it.
func findingText(f reviewFinding) string {
	loc := f.CodeLocation
	head := "- " + strings.TrimSpace(f.Title)
	if loc.AbsoluteFilePath != "" {
		head += fmt.Sprintf(" — %s:%d-%d", loc.AbsoluteFilePath, loc.LineRange.Start, loc.LineRange.End)
	}
	body := strings.TrimSpace(f.Body)
	if body == "" {
		return head
	}
	return head + "\n  " + strings.ReplaceAll(body, "\n", "\n  ")
}
