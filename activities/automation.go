package activities

import (
	"context"
	"fmt"
	"maps"
	"os"

	"github.com/interpreter-dev/interpreter/activities/skills"
)

// CommandJobInput is one run of an automation's command (a job without
// a model). The workflow runs it at most once.
type CommandJobInput struct {
	// RunID names the run (its workflow id): its files on the host are
	// kept under it.
	RunID string `json:"run_id"`
	// Exec is the command, its working directory, timeout and sandbox.
	Exec ExecInput `json:"exec"`
}

// CommandJobOutput is a finished command job.
type CommandJobOutput struct {
	Exec ExecOutput `json:"exec"`
	// Servers names the MCP servers the run's mcporter config held.
	Servers []string `json:"servers,omitempty"`
	// Error says why the command was not run (two skills declaring one
	// server differently).
	Error string `json:"error,omitempty"`
	// Warning says what else went wrong (skills skipped, the config file
	// not removed).
	Warning string `json:"warning,omitempty"`
}

// RunCommandJob runs an automation's command on the workspace host,
// like a shell tool (the same sandbox, supervision and output bounds:
// see [Activities.Exec]), with the MCP servers of every enabled skill of
// its working directory in a per-run mcporter config. The file is
// removed when the run ends; one a dead worker left behind is removed
// by the next run on this host.
func (a *Activities) RunCommandJob(ctx context.Context, in CommandJobInput) (*CommandJobOutput, error) {
	a.sweepRunDirs()
	out := &CommandJobOutput{}
	// Every enabled skill's servers, whatever its ankole-runtime: as
	// [Activities.EnabledSkillServers], keeping a conflict apart from an
	// infrastructure failure.
	found, err := a.DiscoverSkills(ctx, SkillsInput{ThreadID: in.RunID, Cwd: in.Exec.Cwd, Kind: skills.KindAutomation})
	if err != nil {
		return nil, err
	}
	if found.Conflict != "" {
		out.Error = "the command was NOT run: " + found.Conflict
		return out, nil
	}
	for _, w := range found.Warnings {
		out.Warning += w + "\n"
	}
	data, err := mcporterFile(found.Servers)
	if err != nil {
		out.Error = "the command was NOT run: " + err.Error()
		return out, nil
	}
	dir, err := a.openRunDir(in.RunID)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := dir.remove(); err != nil {
			out.Warning += fmt.Sprintf("removing the run's mcporter config: %v\n", err)
		}
	}()
	path, err := dir.writeConfig(data)
	if err != nil {
		return nil, err
	}
	ex := in.Exec
	ex.Env = maps.Clone(ex.Env)
	if ex.Env == nil {
		ex.Env = map[string]string{}
	}
	ex.Env[MCPorterConfigEnv] = path
	a.serverCredentials(found.Servers, ex.Env)
	for _, s := range found.Servers {
		out.Servers = append(out.Servers, s.Name)
	}
	res, err := a.Exec(ctx, ex)
	if res != nil {
		out.Exec = *res
	}
	return out, err
}

// serverCredentials sets, in the command's environment, the variables the
// config's placeholders name, from this worker's environment: the
// command's environment policy would drop them (they look like
// secrets), and mcporter reads them from there. Their values never
// reach the file or the run's history.
func (a *Activities) serverCredentials(servers []skills.MCPDependency, env map[string]string) {
	get := a.Getenv
	if get == nil {
		get = os.Getenv
	}
	for _, s := range servers {
		if v := s.BearerTokenEnvVar; v != "" && get(v) != "" {
			env[v] = get(v)
		}
	}
}
