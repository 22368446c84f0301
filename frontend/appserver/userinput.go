package appserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/interpreter-dev/interpreter/harness"
	"github.com/interpreter-dev/interpreter/workflows"
)

// request_user_input: a tool this server offers the model on threads whose
// client asked for it (thread/start `requestUserInput: true`, with
// experimentalApi). It rides on the dynamic tool machinery (a durable,
// bounded wait in the turn), but the client is asked with
// item/tool/requestUserInput instead of item/tool/call.
const (
	userInputTool      = "request_user_input"
	userInputNamespace = "interpreter"
)

func userInputToolSpec() harness.ExternalTool {
	option := map[string]any{"type": "object", "required": []string{"label", "description"},
		"properties": map[string]any{"label": map[string]any{"type": "string"}, "description": map[string]any{"type": "string"}}}
	question := map[string]any{"type": "object", "required": []string{"id", "header", "question"},
		"properties": map[string]any{
			"id":       map[string]any{"type": "string", "description": "A short id for the answer to refer to"},
			"header":   map[string]any{"type": "string", "description": "A few words shown as the question's title"},
			"question": map[string]any{"type": "string"},
			"options":  map[string]any{"type": "array", "items": option, "description": "Choices to offer, if any"},
		}}
	return harness.ExternalTool{Name: userInputTool, Source: harness.SourceDynamic, Tool: userInputTool, Server: userInputNamespace,
		Description: "Ask the user one or more questions and wait for the answers. Use it only when you cannot go on without the user's decision.",
		Parameters: map[string]any{"type": "object", "required": []string{"questions"},
			"properties": map[string]any{"questions": map[string]any{"type": "array", "items": question, "minItems": 1}}}}
}

func isUserInput(d workflows.DynamicCall) bool {
	return d.Tool == userInputTool && d.Namespace == userInputNamespace
}

// userInputParams reads the model's questions as ToolRequestUserInputParams.
func userInputParams(d workflows.DynamicCall) (map[string]any, error) {
	var args struct {
		Questions []struct {
			ID       string `json:"id"`
			Header   string `json:"header"`
			Question string `json:"question"`
			Options  []struct {
				Label       string `json:"label"`
				Description string `json:"description"`
			} `json:"options"`
		} `json:"questions"`
	}
	if err := json.Unmarshal([]byte(d.Arguments), &args); err != nil {
		return nil, fmt.Errorf("invalid arguments for %s: %v", userInputTool, err)
	}
	if len(args.Questions) == 0 {
		return nil, fmt.Errorf("invalid arguments for %s: `questions` is empty", userInputTool)
	}
	qs := []map[string]any{}
	for i, q := range args.Questions {
		if strings.TrimSpace(q.Question) == "" {
			return nil, fmt.Errorf("invalid arguments for %s: questions[%d].question is empty", userInputTool, i)
		}
		id := q.ID
		if id == "" {
			id = fmt.Sprintf("q%d", i+1)
		}
		var opts any
		if len(q.Options) > 0 {
			list := []map[string]any{}
			for _, o := range q.Options {
				list = append(list, map[string]any{"label": o.Label, "description": o.Description})
			}
			opts = list
		}
		// isOther: any answer the user types is read, choice or not.
		qs = append(qs, map[string]any{"id": id, "header": orDefault(q.Header, id), "question": q.Question,
			"isOther": true, "isSecret": false, "options": opts})
	}
	return map[string]any{"threadId": d.ThreadID, "turnId": d.TurnID, "itemId": d.ItemID, "questions": qs, "autoResolutionMs": nil,
		// Required since 0.171: the turn waits for the answer.
		"isBlocking": true}, nil
}

// userInputAnswer turns a ToolRequestUserInputResponse into the tool's
// result: one line per question, `id: answer; answer`.
func userInputAnswer(ans workflows.DynamicAnswer, raw json.RawMessage) workflows.DynamicAnswer {
	var r struct {
		Answers map[string]struct {
			Answers []string `json:"answers"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Answers == nil {
		ans.Error = fmt.Sprintf("the client's answer is not a ToolRequestUserInputResponse (want {answers}): %s", clip(string(raw), 200))
		return ans
	}
	ids := make([]string, 0, len(r.Answers))
	for id := range r.Answers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var lines []string
	for _, id := range ids {
		lines = append(lines, id+": "+strings.Join(r.Answers[id].Answers, "; "))
	}
	if len(lines) == 0 {
		lines = append(lines, "(the user gave no answer)")
	}
	ans.Success = true
	ans.Content = []workflows.DynamicContent{{Type: "inputText", Text: strings.Join(lines, "\n")}}
	return ans
}
