package skills

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The visibility rule: main runs see any+main, background jobs
// any+background_job, automations everything; "" is any as a runtime and
// main as a kind.
func TestVisible(t *testing.T) {
	cases := []struct {
		runtime, kind string
		want          bool
	}{
		{RuntimeAny, KindMain, true},
		{RuntimeAny, KindBackgroundJob, true},
		{RuntimeAny, KindAutomation, true},
		{"", KindBackgroundJob, true},
		{RuntimeMain, KindMain, true},
		{RuntimeMain, "", true},
		{RuntimeMain, KindBackgroundJob, false},
		{RuntimeMain, KindAutomation, true},
		{RuntimeBackgroundJob, KindMain, false},
		{RuntimeBackgroundJob, "", false},
		{RuntimeBackgroundJob, KindBackgroundJob, true},
		{RuntimeBackgroundJob, KindAutomation, true},
		{RuntimeMain, "nightly", false},
		{RuntimeAny, "nightly", true},
	}
	for _, tc := range cases {
		if got := Visible(tc.runtime, tc.kind); got != tc.want {
			t.Errorf("Visible(%q, %q) = %v, want %v", tc.runtime, tc.kind, got, tc.want)
		}
	}
}

// Discover offers each kind of run the skills its ankole-runtime allows:
// a skill the kind does not see is hidden and leaves its name free; an
// automation sees every skill, so there a later skill of the name is
// shadowed.
func TestDiscoverByKind(t *testing.T) {
	repo, home := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sk := filepath.Join(repo, ".agents", "skills")
	writeSkill(t, filepath.Join(sk, "both"), "both", "any run", "")
	writeSkill(t, filepath.Join(sk, "deploy"), "deploy", "people deploy\nankole-runtime: main", "dependencies:\n  tools:\n    - {type: mcp, value: prod, transport: stdio, command: prod-mcp}\n")
	writeSkill(t, filepath.Join(sk, "nightly"), "nightly", "reports\nankole-runtime: background_job", "dependencies:\n  tools:\n    - {type: mcp, value: reports, transport: stdio, command: reports-mcp}\n")
	userDeploy := writeSkill(t, filepath.Join(home, ".agents", "skills", "deploy"), "deploy", "unattended deploy\nankole-runtime: background_job", "")

	cases := []struct {
		kind                    string
		skills, servers, hidden []string
		shadowed                []string
	}{
		{kind: "", skills: []string{"both:any", "deploy:main"}, servers: []string{"prod"}, hidden: []string{"deploy", "nightly"}},
		{kind: KindMain, skills: []string{"both:any", "deploy:main"}, servers: []string{"prod"}, hidden: []string{"deploy", "nightly"}},
		{kind: KindBackgroundJob, skills: []string{"both:any", "nightly:background_job", "deploy:background_job"}, servers: []string{"reports"}, hidden: []string{"deploy"}},
		{kind: KindAutomation, skills: []string{"both:any", "deploy:main", "nightly:background_job"}, servers: []string{"prod", "reports"}, shadowed: []string{userDeploy}},
	}
	for _, tc := range cases {
		t.Run("kind="+tc.kind, func(t *testing.T) {
			res := Discover(Options{Cwd: repo, UserHome: home, Kind: tc.kind})
			if len(res.Warnings) > 0 {
				t.Fatalf("warnings: %v", res.Warnings)
			}
			var got, hidden, shadowed, servers []string
			for _, s := range res.Skills {
				got = append(got, s.Name+":"+s.Runtime)
			}
			for _, s := range res.Hidden {
				hidden = append(hidden, s.Name)
			}
			slices.Sort(hidden)
			for _, s := range res.Shadowed {
				shadowed = append(shadowed, s.Path)
			}
			deps, err := Dependencies(res.Skills)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range deps {
				servers = append(servers, d.Name)
			}
			if !slices.Equal(got, tc.skills) || !slices.Equal(servers, tc.servers) || !slices.Equal(hidden, tc.hidden) || !slices.Equal(shadowed, tc.shadowed) {
				t.Errorf("skills %q servers %q hidden %q shadowed %q\nwant %q %q %q %q", got, servers, hidden, shadowed, tc.skills, tc.servers, tc.hidden, tc.shadowed)
			}
		})
	}
}
