package activities

import (
	"context"
	"errors"

	"github.com/interpreter-dev/interpreter/activities/skills"
)

// EnabledSkillServers are the MCP servers of every enabled skill of a
// working directory on this host, whatever their ankole-runtime: what an
// automation's command job (no model) gets. The warnings are the skills
// skipped and why; two skills that declare a server differently are an
// error naming both (the job cannot be given either).
func (a *Activities) EnabledSkillServers(ctx context.Context, cwd string) ([]skills.MCPDependency, []string, error) {
	out, err := a.DiscoverSkills(ctx, SkillsInput{Cwd: cwd, Kind: skills.KindAutomation})
	if err != nil {
		return nil, nil, err
	}
	if out.Conflict != "" {
		return nil, out.Warnings, errors.New(out.Conflict)
	}
	return out.Servers, out.Warnings, nil
}
