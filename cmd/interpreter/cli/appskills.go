package cli

import (
	"context"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/frontend/appserver"
)

// Skills lists the skills a turn in cwd would be offered, for the
// app-server's skills/list (appserver.SkillLister), discovered here as
// `interpreter skills list` does.
func (a *appSettings) Skills(ctx context.Context, cwd string) ([]appserver.SkillInfo, []string, error) {
	cfg := a.current()
	out, err := findSkills(ctx, cfg, cwd, skills.KindMain) // the skills of a person's turns
	if err != nil {
		return nil, nil, err
	}
	list := make([]appserver.SkillInfo, 0, len(out.Skills))
	add := func(s skills.Skill, enabled bool) {
		scope := s.Scope
		if scope == skills.ScopeBundled {
			scope = "system" // Codex's name for skills that ship with the program
		}
		list = append(list, appserver.SkillInfo{Name: s.Name, Description: s.Description, Path: s.Path, Scope: scope, Enabled: enabled})
	}
	for _, s := range out.Skills {
		add(s, true)
	}
	// The disabled ones are listed too (enabled: false), so that a client
	// can turn them on again (skills/config/write).
	if len(out.Disabled) > 0 {
		off := map[string]bool{}
		for _, n := range out.Disabled {
			off[n] = true
		}
		acts := &activities.Activities{Home: cfg.Home(), SkillSettings: func() (skills.Settings, error) { return skills.Settings{}, nil }}
		if all, err := acts.DiscoverSkills(ctx, activities.SkillsInput{Cwd: cwd}); err == nil {
			for _, s := range all.Skills {
				if off[s.Name] {
					add(s, false)
				}
			}
		}
	}
	return list, out.Warnings, nil
}
