package harness

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The goal tools carry Codex's names and parameters.
func TestGoalToolsShape(t *testing.T) {
	tools := GoalTools()
	var names []string
	for _, x := range tools {
		names = append(names, x.Name)
		if x.Source != SourceGoals || x.Tool != x.Name || x.Description == "" {
			t.Errorf("tool %+v", x)
		}
		if _, err := json.Marshal(x.Parameters); err != nil {
			t.Errorf("%s: parameters: %v", x.Name, err)
		}
	}
	if want := []string{"get_goal", "create_goal", "update_goal"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	if req := tools[1].Parameters["required"]; !reflect.DeepEqual(req, []string{"objective"}) {
		t.Errorf("create_goal required %v", req)
	}
	props := tools[2].Parameters["properties"].(Props)
	if len(props) != 1 || props[0].Name != "status" || !reflect.DeepEqual(props[0].Schema["enum"], []string{"complete", "blocked", "paused"}) {
		t.Errorf("update_goal properties %+v", props)
	}
}

func TestDecodeGoalArgs(t *testing.T) {
	a, bad := DecodeGoalArgs(`{"objective":"x","token_budget":5}`)
	if bad != "" || a.Objective != "x" || a.TokenBudget == nil || *a.TokenBudget != 5 {
		t.Fatalf("%+v %q", a, bad)
	}
	if _, bad := DecodeGoalArgs(`{"status":3}`); bad == "" {
		t.Fatal("a number status was accepted")
	}
	if a, bad := DecodeGoalArgs(""); bad != "" || a != (GoalArgs{}) {
		t.Fatalf("empty: %+v %q", a, bad)
	}
}
