package activities

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/interpreter-dev/interpreter/activities/skills"
)

// SkillsInput asks which skills a turn offers.
type SkillsInput struct {
	ThreadID string `json:"thread_id"`
	// Cwd is the thread's working directory on the workspace host.
	Cwd string `json:"cwd"`
	// HostQueue, when set, names the workspace host the discovery must run
	// on: a worker that does not serve that queue answers Elsewhere
	// without looking. (Set when the call is a local activity, which runs
	// on whichever worker holds the turn.)
	HostQueue string `json:"host_queue,omitempty"`
	// Docs, when set, asks for the instructions files (AGENTS.md) too:
	// they live on the same host.
	Docs *DocsRequest `json:"docs,omitempty"`
	// Kind is the kind of run asking (skills.Kinds; "" is main): only the
	// skills whose ankole-runtime it sees are offered.
	Kind string `json:"kind,omitempty"`
}

// SkillsOutput is what a turn offers: the enabled skills, the MCP servers
// they need (merged), and the skills skipped and why.
type SkillsOutput struct {
	Skills []skills.Skill `json:"skills,omitempty"`
	// Servers is the union of the enabled skills' MCP dependencies.
	Servers []skills.MCPDependency `json:"servers,omitempty"`
	// Disabled names the skills the settings turned off.
	Disabled []string `json:"disabled,omitempty"`
	// Warnings say which skills were skipped and why (a bad SKILL.md or
	// openai.yaml, unreadable settings).
	Warnings []string `json:"warnings,omitempty"`
	// Conflict is set when two enabled skills declare the same server
	// differently: the turn cannot be prepared (it names both skills).
	Conflict string `json:"conflict,omitempty"`
	// Elsewhere says this worker is not the workspace host asked for
	// (SkillsInput.HostQueue): nothing was discovered.
	Elsewhere bool `json:"elsewhere,omitempty"`
	// Docs are the instructions files found (see [SkillsInput.Docs]).
	Docs *DocsOutput `json:"docs,omitempty"`
	// Hidden names the enabled skills this kind of run does not see
	// (their ankole-runtime); Shadowed the skills of a name an earlier
	// folder's skill took.
	Hidden   []string        `json:"hidden,omitempty"`
	Shadowed []skills.Shadow `json:"shadowed,omitempty"`
}

// DiscoverSkills finds the skills of a working directory on the workspace
// host, applies the host's skill settings (read again for every turn, so a
// skill disabled in config.toml is gone from the next turn), and merges
// their MCP dependencies. Bad skills are warnings, a conflict is reported
// in the output; only infrastructure failures are errors.
func (a *Activities) DiscoverSkills(ctx context.Context, in SkillsInput) (*SkillsOutput, error) {
	out := &SkillsOutput{}
	if in.HostQueue != "" && in.HostQueue != a.HostQueue {
		out.Elsewhere = true
		return out, nil
	}
	home := a.SkillsUserHome
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if in.Docs != nil {
		docs := ReadProjectDocs(in.Cwd, home, a.Home, *in.Docs)
		out.Docs = &docs
	}
	var settings skills.Settings
	if a.SkillSettings != nil {
		st, err := a.SkillSettings()
		if err != nil {
			// Fail closed: a skill the user meant to disable must not come
			// back because the settings could not be read.
			out.Warnings = append(out.Warnings, fmt.Sprintf("no skills in this turn: reading the skills settings: %v", err))
			return out, nil
		}
		settings = st
	}
	res := skills.Discover(skills.Options{
		Cwd: in.Cwd, UserHome: home, Bundled: skills.Bundled(), BundledDir: a.bundledSkillsDir(), Settings: settings, Kind: in.Kind,
	})
	out.Skills = res.Skills
	for _, s := range res.Disabled {
		out.Disabled = append(out.Disabled, s.Name)
	}
	for _, w := range res.Warnings {
		out.Warnings = append(out.Warnings, w.String())
	}
	for _, s := range res.Hidden {
		out.Hidden = append(out.Hidden, s.Name)
	}
	out.Shadowed = res.Shadowed
	servers, err := skills.Dependencies(res.Skills)
	if err != nil {
		out.Conflict = err.Error()
		return out, nil
	}
	out.Servers = servers
	return out, nil
}

// bundledSkillsDir is where the bundled skills are written for the model
// to read: <home>/skills/bundled.
func (a *Activities) bundledSkillsDir() string {
	if a.Home != "" {
		return filepath.Join(a.Home, "skills", "bundled")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("interpreter-%d", os.Getuid()), "skills", "bundled")
}
