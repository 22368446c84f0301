//go:build linux

package sandbox

import (
	"os"
	"syscall"
)

// startWays are, from the strictest: a PID namespace (needs
// CAP_SYS_ADMIN, so root only), a user and PID namespace (any user, where
// the kernel allows unprivileged user namespaces), and a plain child in
// its own process group. Every way sets the helper's parent-death signal:
// SIGKILL for init of a namespace (the kernel then kills all in it),
// SIGTERM otherwise (the helper kills what it supervises, then exits) and
// for a graceful helper in any way (it ends the command with SIGTERM
// first, see [supervise]).
func startWays(graceful bool) []way {
	nsDeath := syscall.SIGKILL
	if graceful {
		nsDeath = syscall.SIGTERM
	}
	var ways []way
	if os.Geteuid() == 0 {
		ways = append(ways, way{namespaced: true, attr: func() *syscall.SysProcAttr {
			return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: nsDeath, Cloneflags: syscall.CLONE_NEWPID}
		}})
	}
	ways = append(ways, way{namespaced: true, attr: func() *syscall.SysProcAttr {
		// The command keeps its own uid and gid (mapped onto themselves);
		// it has no capability in the new user namespace after exec, so the
		// read-only and workspace-write boundaries still need root and are
		// refused without it, as before.
		return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: nsDeath,
			Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}}
	}})
	return append(ways, way{attr: func() *syscall.SysProcAttr {
		return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	}})
}
