package appserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/interpreter-dev/interpreter/frontend/appserver/protocol"
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

func userInputToolSpec() workflows.ExternalTool {
	option := workflows.SchemaObject([]string{"label", "description"},
		workflows.SchemaP("description", workflows.SchemaStr("")), workflows.SchemaP("label", workflows.SchemaStr("")))
	question := workflows.SchemaObject([]string{"id", "header", "question"},
		workflows.SchemaP("header", workflows.SchemaStr("A few words shown as the question's title")),
		workflows.SchemaP("id", workflows.SchemaStr("A short id for the answer to refer to")),
		workflows.SchemaP("options", workflows.SchemaArr("Choices to offer, if any", option)),
		workflows.SchemaP("question", workflows.SchemaStr("")))
	return workflows.ExternalTool{Name: userInputTool, Source: workflows.ToolSourceDynamic, Tool: userInputTool, Server: userInputNamespace,
		Description: "Ask the user one or more questions and wait for the answers. Use it only when you cannot go on without the user's decision.",
		Parameters: workflows.SchemaObject([]string{"questions"},
			workflows.SchemaP("questions", workflows.SchemaWith(workflows.SchemaArr("", question), "minItems", 1)))}
}

func isUserInput(d workflows.DynamicCall) bool {
	return d.Tool == userInputTool && d.Namespace == userInputNamespace
}

// userInputParams reads the model's questions as ToolRequestUserInputParams.
func userInputParams(d workflows.DynamicCall) (protocol.ToolRequestUserInputParams, error) {
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
		return protocol.ToolRequestUserInputParams{}, fmt.Errorf("invalid arguments for %s: %v", userInputTool, err)
	}
	if len(args.Questions) == 0 {
		return protocol.ToolRequestUserInputParams{}, fmt.Errorf("invalid arguments for %s: `questions` is empty", userInputTool)
	}
	qs := []protocol.ToolRequestUserInputItem{}
	for i, q := range args.Questions {
		if strings.TrimSpace(q.Question) == "" {
			return protocol.ToolRequestUserInputParams{}, fmt.Errorf("invalid arguments for %s: questions[%d].question is empty", userInputTool, i)
		}
		id := q.ID
		if id == "" {
			id = fmt.Sprintf("q%d", i+1)
		}
		var opts []protocol.ToolRequestUserInputOption // null: none
		for _, o := range q.Options {
			opts = append(opts, protocol.ToolRequestUserInputOption{Label: o.Label, Description: o.Description})
		}
		// isOther: any answer the user types is read, choice or not.
		qs = append(qs, protocol.ToolRequestUserInputItem{ID: id, Header: orDefault(q.Header, id), Question: q.Question,
			IsOther: true, Options: opts})
	}
	return protocol.ToolRequestUserInputParams{ThreadID: d.ThreadID, TurnID: d.TurnID, ItemID: d.ItemID, Questions: qs,
		IsBlocking: true}, nil
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
