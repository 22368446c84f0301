package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
)

// printKindNotes says which enabled skills the kind of run does not see
// (their ankole-runtime) and which skills an earlier one of their name
// shadows.
func printKindNotes(stdio Stdio, kind string, out *activities.SkillsOutput) {
	if len(out.Hidden) > 0 {
		fmt.Fprintf(stdio.Out, "\nnot for %s run (%s): %s\n", aKind(kind), skills.RuntimeKey, strings.Join(out.Hidden, ", "))
	}
	for _, s := range out.Shadowed {
		fmt.Fprintf(stdio.Out, "\nshadowed: %s at %s (the one at %s is used)\n", s.Name, s.Path, s.By)
	}
}

// kindConflict is a kind's conflict as `skills list` reports it.
func kindConflict(kind, conflict string) []string {
	if conflict == "" {
		return nil
	}
	what := "a " + kind + " run here cannot start"
	if kind == skills.KindAutomation {
		what = "an automation command job here cannot get the skills' servers"
	}
	return []string{what + ": " + conflict}
}

// otherConflicts are the conflicts of the kinds of run other than the
// one listed (each sees its own skills, so each may have its own).
func otherConflicts(ctx context.Context, cfg *config.Config, cwd, listed string) []string {
	var out []string
	for _, k := range skills.Kinds {
		if k == listed {
			continue
		}
		res, err := findSkills(ctx, cfg, cwd, k)
		if err != nil {
			out = append(out, fmt.Sprintf("%s run: %v", aKind(k), err))
			continue
		}
		out = append(out, kindConflict(k, res.Conflict)...)
	}
	return out
}

// aKind is the kind with its article ("a main", "an automation").
func aKind(kind string) string {
	if strings.HasPrefix(kind, "a") {
		return "an " + kind
	}
	return "a " + kind
}
