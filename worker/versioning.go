package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// DefaultDeployment is the Worker Deployment the shared workers join.
const DefaultDeployment = "interpreter"

// Versioning puts the shared queue's worker into a Temporal Worker
// Deployment, so workers of several builds can poll side by side during a
// rolling upgrade: each turn runs, start to end, on the build that began
// it (pinned: turn code changes need no markers), while threads move to
// the current build at their next workflow task (auto-upgrade: every
// change to thread code sits behind a workflow.GetVersion marker with a
// replay history recorded for it). See workflows/baseline.go.
//
// Without a deployment the workers are unversioned, and a new build
// replaces the old one (stop the old workers, then start the new): a run
// the new build cannot replay fails by the worker's panic policy
// ([worker.FailWorkflow], set in [Start]) rather than retrying forever.
type Versioning struct {
	// Deployment names the Worker Deployment ([DefaultDeployment]).
	Deployment string
	// BuildID names this build ([DefaultBuildID] when empty).
	BuildID string
	// Promote makes this build the deployment's current version once the
	// worker polls; without it, the build becomes current only when the
	// deployment has none yet.
	Promote bool
}

func (v *Versioning) options() worker.DeploymentOptions {
	return worker.DeploymentOptions{
		UseVersioning:             true,
		Version:                   worker.WorkerDeploymentVersion{DeploymentName: v.Deployment, BuildID: v.BuildID},
		DefaultVersioningBehavior: workflow.VersioningBehaviorAutoUpgrade,
	}
}

// DefaultBuildID names the running binary: its VCS revision when it was
// built from a clean checkout, else a hash of the executable.
func DefaultBuildID() string {
	if rev, modified := vcsRevision(); rev != "" && !modified {
		return rev
	}
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return "sha-" + hex.EncodeToString(h.Sum(nil))[:12]
			}
		}
	}
	return "unknown"
}

// vcsRevision is the VCS revision the binary was built from (its first
// 12 characters, "" when the build recorded none) and whether the
// checkout had changes.
func vcsRevision() (rev string, modified bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return rev, modified
}

// promoteTimeout bounds how long a starting worker waits for the server
// to know its version (it registers with the first poll).
const promoteTimeout = 20 * time.Second

// Promote makes v's build the current version of its deployment when
// v.Promote asks or the deployment has no current version; it reports
// whether the build is current now.
func Promote(ctx context.Context, c client.Client, v Versioning) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, promoteTimeout)
	defer cancel()
	h := c.WorkerDeploymentClient().GetHandle(v.Deployment)
	var last error
	for {
		d, err := h.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
		if err == nil {
			cur := d.Info.RoutingConfig.CurrentVersion
			if cur != nil && cur.BuildID == v.BuildID {
				return true, nil
			}
			if cur != nil && !v.Promote {
				return false, nil
			}
			if known(d.Info, v.BuildID) {
				_, err = h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{
					BuildID: v.BuildID, ConflictToken: d.ConflictToken, IgnoreMissingTaskQueues: true})
				if err == nil {
					return true, nil
				}
			}
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last == nil {
				last = ctx.Err()
			}
			return false, fmt.Errorf("making build %s current in deployment %s: %w", v.BuildID, v.Deployment, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func known(info client.WorkerDeploymentInfo, buildID string) bool {
	for _, s := range info.VersionSummaries {
		if s.Version.BuildID == buildID {
			return true
		}
	}
	return false
}
