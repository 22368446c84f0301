//go:build !linux

package sandbox

import "syscall"

// startWays: other systems have no PID namespaces nor parent-death
// signals; the helper runs in its own process group, and only the
// lifeline ties it to the worker, gracefully or not.
func startWays(bool) []way {
	return []way{{attr: func() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }}}
}
