package harness_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interpreter-dev/interpreter/harness"
)

var skillsEnv = func() harness.Env {
	env := goldenEnv
	env.Skills = []harness.Skill{
		{Name: "deploy", Description: "Ship the service to staging. Use when asked to deploy.", Path: "/work/project/.agents/skills/deploy/SKILL.md"},
		{Name: "code-review", Description: "Review a change for bugs and missing tests.", Path: "/home/u/.interpreter/skills/bundled/code-review/SKILL.md"},
	}
	return env
}()

// Every harness lists the skills in its system prompt, each with its name,
// description and the path of its SKILL.md, and tells the model to open the
// file; without skills nothing is listed. The listings are kept in
// testdata/golden/skills (regenerate with -update).
func TestEverySkillsListing(t *testing.T) {
	for _, name := range harness.Names() {
		t.Run(name, func(t *testing.T) {
			h, _ := harness.Lookup(name)
			env := skillsEnv
			env.Model = modelFor(name)
			got := h.Instructions(env)
			for _, s := range env.Skills {
				for _, want := range []string{s.Name, s.Description, s.Path} {
					if !strings.Contains(got, want) {
						t.Errorf("the system prompt lacks %q", want)
					}
				}
			}
			lower := strings.ToLower(got)
			if !strings.Contains(lower, "skill") || !(strings.Contains(lower, "read") || strings.Contains(lower, "cat ") || strings.Contains(lower, "open")) {
				t.Errorf("the system prompt does not say how to open a skill")
			}
			env.Skills = nil
			without := h.Instructions(env)
			if strings.Contains(without, "SKILL.md") || strings.Contains(without, "code-review") {
				t.Errorf("skills listed without skills")
			}

			// The golden file holds what the skills add: the prompt with
			// skills minus the common start and end of the one without.
			pre := 0
			for pre < len(got) && pre < len(without) && got[pre] == without[pre] {
				pre++
			}
			suf := 0
			for suf < len(got)-pre && suf < len(without)-pre && got[len(got)-1-suf] == without[len(without)-1-suf] {
				suf++
			}
			listing := []byte(got[pre:len(got)-suf] + "\n")
			path := filepath.Join("testdata", "golden", "skills", name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, listing, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(want, listing) {
				t.Errorf("skills listing differs from %s (run with -update after checking the change):\n%s", path, firstDiff(want, listing))
			}
		})
	}
}
