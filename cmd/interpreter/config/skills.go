package config

import (
	"fmt"
	"path/filepath"

	"github.com/interpreter-dev/interpreter/activities/skills"
)

// Skills holds [skills], with Codex's keys: every discovered skill is
// enabled unless a [[skills.config]] entry turns it off (the last entry
// that matches a skill decides), and [skills.bundled] enabled = false
// turns off the skills bundled with the binary.
//
//	[[skills.config]]
//	path = "/repo/.agents/skills/deploy/SKILL.md"  # or the skill's folder
//	enabled = false
//
//	[[skills.config]]
//	name = "code-review"
//	enabled = false
type Skills struct {
	Bundled SkillsBundled `toml:"bundled"`
	Config  []SkillConfig `toml:"config"`
}

// SkillsBundled holds [skills.bundled].
type SkillsBundled struct {
	// Enabled: nil means the default, on.
	Enabled *bool `toml:"enabled"`
}

// SkillConfig is one [[skills.config]] entry: a selector (Path or Name)
// and whether the skills it selects are enabled.
type SkillConfig struct {
	// Path is a skill's SKILL.md or its folder (absolute; ~ expands).
	Path    string `toml:"path"`
	Name    string `toml:"name"`
	Enabled *bool  `toml:"enabled"`
}

func (s Skills) validate() error {
	for i, c := range s.Config {
		key := fmt.Sprintf("skills.config[%d]", i)
		switch {
		case c.Path == "" && c.Name == "":
			return fmt.Errorf("invalid %s: give the skill's path or its name", key)
		case c.Path != "" && c.Name != "":
			return fmt.Errorf("invalid %s: give the skill's path or its name, not both", key)
		case c.Path != "" && !filepath.IsAbs(expandHome(c.Path)):
			return fmt.Errorf("invalid %s.path %q: must be an absolute path", key, c.Path)
		case c.Enabled == nil:
			return fmt.Errorf("invalid %s: enabled (true or false) is required", key)
		}
	}
	return nil
}

// SkillSettings are the skill settings as the skills activity applies
// them.
func (c *Config) SkillSettings() skills.Settings {
	var st skills.Settings
	st.NoBundled = c.Skills.Bundled.Enabled != nil && !*c.Skills.Bundled.Enabled
	for _, e := range c.Skills.Config {
		r := skills.Rule{Name: e.Name, Enabled: e.Enabled != nil && *e.Enabled}
		if e.Path != "" {
			r.Path = filepath.Clean(expandHome(e.Path))
		}
		st.Rules = append(st.Rules, r)
	}
	return st
}

// Reload reads the configuration again with the options it was loaded
// with (a changed config.toml shows).
func (c *Config) Reload() (*Config, error) {
	return Load(c.opts)
}
