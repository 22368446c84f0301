package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/interpreter-dev/interpreter/activities"
	"github.com/interpreter-dev/interpreter/activities/skills"
	"github.com/interpreter-dev/interpreter/cmd/interpreter/config"
)

// SkillsCmd inspects the skills.
type SkillsCmd struct {
	List SkillsListCmd `cmd:"" help:"List the skills a turn in a directory gets on this host (by kind of run), the skills skipped and why, and the MCP servers they need."`
}

// SkillsListCmd lists the skills of a working directory as a turn would
// find them on this host, with this host's [skills] settings.
type SkillsListCmd struct {
	Cd   string `short:"C" name:"cd" help:"Working directory (default: the current one)." placeholder:"DIR"`
	JSON bool   `name:"json" help:"Print what a turn records, as JSON."`
	Kind string `name:"kind" enum:",main,background_job,automation" default:"" help:"Kind of run: main (a person's turn; the default), background_job (exec --background, goal continuations, automation prompts) or automation (a command job: every enabled skill's servers). Without it, the main listing, and conflicts of every kind."`
}

// Run prints the listing; a conflict between two skills exits 1.
func (c *SkillsListCmd) Run(ctx context.Context, g *Globals, stdio Stdio) error {
	cfg, err := g.load(nil)
	if err != nil {
		return err
	}
	cd := c.Cd
	if cd == "" {
		cd = "."
	}
	cwd, err := filepath.Abs(cd)
	if err != nil {
		return exitf(2, "bad --cd: %v", err)
	}
	kind := orDefault(c.Kind, skills.KindMain)
	out, err := findSkills(ctx, cfg, cwd, kind)
	if err != nil {
		return exitf(1, "%v", err)
	}
	if c.JSON {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdio.Out, string(b))
	} else {
		tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintf(stdio.Out, "skills of %s run in %s:\n", aKind(kind), cwd)
		fmt.Fprintln(tw, "NAME\tSCOPE\tRUNTIME\tSERVERS\tPATH")
		for _, s := range out.Skills {
			var names []string
			for _, d := range s.Dependencies {
				names = append(names, d.Name)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Scope, orDash(s.Runtime), orDash(strings.Join(names, ",")), s.Path)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(out.Disabled) > 0 {
			fmt.Fprintf(stdio.Out, "\ndisabled ([[skills.config]]): %s\n", strings.Join(out.Disabled, ", "))
		}
		printKindNotes(stdio, kind, out)
		if len(out.Servers) > 0 {
			fmt.Fprintf(stdio.Out, "\nMCP servers the skills need:\n")
			for _, d := range out.Servers {
				where := d.URL
				if d.Transport == skills.TransportStdio {
					where = strings.Join(append([]string{d.Command}, d.Args...), " ")
				}
				fmt.Fprintf(stdio.Out, "  %s (%s %s) for %s\n", d.Name, d.Transport, where, strings.Join(d.Skills, ", "))
			}
		}
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(stdio.Err, "interpreter: warning: %s\n", w)
	}
	conflicts := kindConflict(kind, out.Conflict)
	if c.Kind == "" {
		// The other kinds see other skills: their conflicts too.
		conflicts = append(conflicts, otherConflicts(ctx, cfg, cwd, kind)...)
	}
	for _, m := range conflicts[min(1, len(conflicts)):] {
		fmt.Fprintf(stdio.Err, "interpreter: %s\n", m)
	}
	if len(conflicts) > 0 {
		return exitf(1, "%s", conflicts[0])
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// findSkills runs the turn's skills step locally, for a kind of run.
func findSkills(ctx context.Context, cfg *config.Config, cwd, kind string) (*activities.SkillsOutput, error) {
	acts := &activities.Activities{Home: cfg.Home(), SkillSettings: func() (skills.Settings, error) { return cfg.SkillSettings(), nil }}
	return acts.DiscoverSkills(ctx, activities.SkillsInput{Cwd: cwd, Kind: kind})
}
