package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
)

// ListText is the table `interpreter harness list` prints: each
// registered harness with its wire APIs and its tools (and the core tool
// each maps onto), then how a harness is chosen by default.
func ListText() string {
	var out bytes.Buffer
	tw := tabwriter.NewWriter(&out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tWIRE APIS\tTOOLS")
	for _, name := range Names() {
		h := registry[name]
		info := h.Info()
		var tools []string
		for _, t := range h.Tools() {
			tools = append(tools, t.Name+"→"+t.Core)
		}
		list := strings.Join(tools, ", ")
		if info.TextLoop {
			list = "none: text loop, one command per reply, run as shell"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, strings.Join(info.Wires, ", "), list)
	}
	_ = tw.Flush()
	out.WriteString("\nWithout `harness` in config (or --harness), a Messages provider gets claude-code and other providers\n" +
		"the model family's harness: claude → claude-code, kimi/moonshot → kimi-cli, qwen/qwq/dashscope → qwen-code,\n" +
		"deepseek → deepseek-tui, gpt/o-series/anything else → codex.\n")
	return out.String()
}

// DescribeRequest is the text `interpreter harness show` prints for the
// first request of req over wire: the system prompt, the tool schemas as
// sent and the other request fields; with asJSON, the whole request body,
// indented.
func DescribeRequest(req Request, wire string, asJSON bool) (string, error) {
	var params any
	switch wire {
	case WireResponses:
		params = RenderResponses(req)
	case WireChat:
		params = RenderChat(req)
	case WireMessages:
		params = RenderMessages(req)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	if asJSON {
		_ = json.Indent(&out, raw, "", "  ")
		out.WriteString("\n")
		return out.String(), nil
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		return "", err
	}
	system := systemPrompt(wire, body)
	tools := body["tools"]
	for _, k := range []string{"instructions", "input", "messages", "system", "tools"} {
		delete(body, k)
	}
	info := req.Harness.Info()
	fmt.Fprintf(&out, "harness %s over %s, model %s\n", info.Name, wire, req.Env.Model)
	if info.StartupContext {
		fmt.Fprintf(&out, "(a thread opens with a start-up context exchange: date, OS, working directory and its listing)\n")
	}
	fmt.Fprintf(&out, "\n--- system prompt ---\n%s\n", strings.TrimRight(system, "\n"))
	fmt.Fprintf(&out, "\n--- tools (as sent) ---\n")
	if len(tools) == 0 {
		fmt.Fprintln(&out, "none (text loop: the command is read from the reply, its output is the next user message)")
	} else {
		_ = json.Indent(&out, tools, "", "  ")
		out.WriteString("\n")
	}
	rest, _ := json.MarshalIndent(body, "", "  ")
	fmt.Fprintf(&out, "\n--- other request fields ---\n%s\n", rest)
	return out.String(), nil
}

// systemPrompt finds the system prompt in a rendered request body.
func systemPrompt(wire string, body map[string]json.RawMessage) string {
	var s string
	switch wire {
	case WireResponses:
		_ = json.Unmarshal(body["instructions"], &s)
	case WireChat:
		var msgs []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		_ = json.Unmarshal(body["messages"], &msgs)
		if len(msgs) > 0 && msgs[0].Role == "system" {
			s = msgs[0].Content
		}
	case WireMessages:
		var blocks []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(body["system"], &blocks)
		for _, b := range blocks {
			s += b.Text
		}
	}
	return s
}
