package cli

import (
	"context"

	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/frontend/appserver"
)

// Skills lists the skills a turn in cwd would be offered, for the
// app-server's skills/list (appserver.SkillLister), discovered here as
// `interpreter skills list` does.
func (a *appSettings) Skills(ctx context.Context, cwd string) ([]appserver.SkillInfo, []string, error) {
	out, err := findSkills(ctx, a.cfg, cwd)
	if err != nil {
		return nil, nil, err
	}
	list := make([]appserver.SkillInfo, 0, len(out.Skills))
	for _, s := range out.Skills {
		scope := s.Scope
		if scope == skills.ScopeBundled {
			scope = "system" // Codex's name for skills that ship with the program
		}
		list = append(list, appserver.SkillInfo{Name: s.Name, Description: s.Description, Path: s.Path, Scope: scope})
	}
	return list, out.Warnings, nil
}
