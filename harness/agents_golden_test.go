package harness_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
)

// agentTool is, per harness with a sub-agent tool of its own, the tool's
// name, parameters and required ones as the CLI publishes them (Claude
// Code's Task; kimi-cli's Agent, without run_in_background), and the call
// its model makes in the golden conversation.
var agentTool = map[string]struct {
	name     string
	params   []string
	required []string
	args     string
}{
	"claude-code": {"Task", []string{"description", "prompt", "subagent_type"}, []string{"description", "prompt", "subagent_type"},
		`{"description":"Find the Add bug","prompt":"Find why TestAdd fails and report the line.","subagent_type":"Explore"}`},
	"kimi-cli": {"Agent", []string{"description", "model", "prompt", "resume", "subagent_type", "timeout"}, []string{"description", "prompt"},
		`{"description":"Find the Add bug","prompt":"Find why TestAdd fails and report the line.","subagent_type":"explore"}`},
}

// TestAgentToolShapes: each harness's sub-agent tool has its CLI's name,
// parameters and required list, and maps onto the foreground run.
func TestAgentToolShapes(t *testing.T) {
	for _, name := range harness.Names() {
		h, _ := harness.Lookup(name)
		r, ok := h.(harness.AgentRunner)
		want, listed := agentTool[name]
		if ok != listed {
			t.Errorf("%s: has a sub-agent tool %v, listed %v", name, ok, listed)
			continue
		}
		if !ok {
			continue
		}
		tools := r.AgentTools()
		if len(tools) != 1 || tools[0].Name != want.name || tools[0].Tool != harness.AgentRun || tools[0].Source != harness.SourceAgents {
			t.Fatalf("%s: tools %+v", name, tools)
		}
		b, _ := json.Marshal(tools[0].Parameters)
		var p struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		_ = json.Unmarshal(b, &p)
		var got []string
		for k := range p.Properties {
			got = append(got, k)
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, want.params) || !reflect.DeepEqual(p.Required, want.required) {
			t.Errorf("%s: parameters %v required %v; want %v, %v", name, got, p.Required, want.params, want.required)
		}
	}
}

// The exact request bodies of a conversation in which the model runs a
// sub-agent with its harness's own tool and reads the result, over every
// wire the harness fits (testdata/golden/agents; regenerate with -update).
func TestGoldenAgentRequests(t *testing.T) {
	for name, tool := range agentTool {
		h, _ := harness.Lookup(name)
		r := h.(harness.AgentRunner)
		for _, wire := range h.Info().Wires {
			t.Run(name+"/"+wire, func(t *testing.T) {
				ext := r.AgentTools()
				call := harness.ToolCall{CallID: "call_1", Name: tool.name, Arguments: tool.args}
				inv := harness.DecodeCall(h, ext, call)
				if inv.Tool != harness.ToolExternal || inv.Agent == nil || inv.Agent.Prompt == "" || inv.Agent.SubagentType == "" {
					t.Fatalf("the call decodes to %+v", inv)
				}
				if role, refusal := r.AgentRole(inv.Agent.SubagentType); role != "explorer" || refusal != "" {
					t.Fatalf("%s runs as %q (%s)", inv.Agent.SubagentType, role, refusal)
				}
				result := r.AgentResult(harness.AgentResult{AgentID: "019a-agent", SubagentType: inv.Agent.SubagentType,
					Message: "calc.go:4 returns a+b+1; it should return a+b."})
				conv := []harness.Entry{
					{Kind: harness.KindUser, Text: "The test TestAdd fails. Find out why with a sub-agent."},
					{Kind: harness.KindAssistant, Text: "I will ask a sub-agent."},
					{Kind: harness.KindToolCall, CallID: "call_1", Name: tool.name, Arguments: tool.args},
					{Kind: harness.KindToolOutput, CallID: "call_1", Name: tool.name, Text: result},
				}
				req := harness.Request{Model: modelFor(name), Harness: h, Env: goldenEnv, CacheKey: "thread-1", External: ext, Conversation: conv}
				req.Env.Model = req.Model
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, render(t, wire, req), "", "  "); err != nil {
					t.Fatal(err)
				}
				pretty.WriteByte('\n')
				path := filepath.Join("testdata", "golden", "agents", name+"."+wire+".json")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(want, pretty.Bytes()) {
					t.Errorf("request body differs from %s (run with -update after checking the change):\n%s", path, firstDiff(want, pretty.Bytes()))
				}
			})
		}
	}
}
