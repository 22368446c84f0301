package cli

import (
	"time"

	"github.com/interpreter-dev/interpreter/sandbox"
)

// SandboxCmd holds the hidden helper the workspace host re-executes to run
// a command inside the sandbox (see sandbox.Transform).
type SandboxCmd struct {
	Linux SandboxLinuxCmd `cmd:"" help:"Run a command inside the Linux sandbox (Landlock, namespaces)."`
}

// SandboxLinuxCmd is `interpreter sandbox linux --mode M [--writable-root
// DIR]... [--network] [--protect PATH]... [--report-fd N] [--lifeline-fd N]
// [--term-grace DUR] -- CMD ARGS...`.
type SandboxLinuxCmd struct {
	Mode         string        `required:"" help:"read-only, workspace-write or danger-full-access (no restriction, only supervision)."`
	WritableRoot []string      `name:"writable-root" sep:"none" help:"Directory the command may write under (workspace-write). Repeatable." placeholder:"DIR"`
	Network      bool          `help:"Allow network access (workspace-write)."`
	Protect      []string      `sep:"none" help:"Path that stays read-only even under a writable root (besides each root's .git). Repeatable." placeholder:"PATH"`
	ReportFD     int           `name:"report-fd" help:"Write a setup failure to this file descriptor." placeholder:"N"`
	LifelineFD   int           `name:"lifeline-fd" help:"End the command when this descriptor reads end of file (the worker is gone)." placeholder:"N"`
	TermGrace    time.Duration `name:"term-grace" help:"When stopped, or when the worker is gone, SIGTERM the command's processes and SIGKILL them after this long (0: SIGKILL at once)." placeholder:"DUR"`
	Command      []string      `arg:"" passthrough:"" help:"The command and its arguments, after --."`
}

// Run enters the sandbox, runs the command and supervises it; it returns
// only when the sandbox could not be applied, and then the command did not
// run.
func (s *SandboxLinuxCmd) Run() error {
	argv := s.Command
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	mode, err := sandbox.ParseMode(s.Mode)
	if err != nil {
		sandbox.ExitRefused(s.ReportFD, err)
	}
	b := sandbox.Boundary{Mode: mode, WritableRoots: s.WritableRoot, Network: s.Network, Protected: s.Protect,
		ReportFD: s.ReportFD, LifelineFD: s.LifelineFD, TermGrace: s.TermGrace}
	sandbox.ExitRefused(s.ReportFD, sandbox.Enter(b, argv))
	return nil
}
