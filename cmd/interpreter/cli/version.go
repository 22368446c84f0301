package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/interpreter-dev/interpreter/workflows"
)

// Release is the release this build is: the one whose baseline its
// workflow code is.
const Release = workflows.Release

// commit is the build's commit when the Go toolchain did not record it
// (GOFLAGS=-buildvcs=false, a build from an archive):
// go build -ldflags "-X github.com/interpreter-dev/interpreter/cmd/interpreter/cli.commit=$(git rev-parse --short HEAD)".
var commit string

// CodexProtocol is the release of Codex whose app-server protocol this
// build speaks (its schemas are dev/codexschema's newest).
const CodexProtocol = "0.171.0"

// Version is what the app-server and the MCP server report to their
// clients (serverInfo, userAgent, a thread's cliVersion) and traces carry
// as service.version: the release, with the Codex protocol release as
// semver build metadata ("0.1.0+codex.0.171.0"). A Codex client compares
// the version in the app-server's userAgent with its own and warns of an
// older server; a version with build metadata is one it does not order,
// so it does not warn, and the metadata says which of its releases this
// server follows.
var Version = Release + "+codex." + CodexProtocol

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints the version.
func (VersionCmd) Run(io Stdio) error {
	fmt.Fprintln(io.Out, versionLine())
	return nil
}

// versionLine is "interpreter RELEASE (COMMIT)".
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Sprintf("interpreter %s (%s)", Release, buildCommit(nil))
	}
	return fmt.Sprintf("interpreter %s (%s)", Release, buildCommit(info.Settings))
}

// buildCommit is the commit the binary was built from (short), with
// "-dirty" when the tree had changes, or "unknown" when the build did not
// record it (go run, test binaries, builds outside a checkout).
func buildCommit(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" && commit != "" {
		return commit
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
