package worker

import (
	"fmt"
	"os"

	"go.temporal.io/sdk/worker"
)

// NameBinary gives the SDK the name of this process's binary (the binary
// checksum each worker reports, which the Web UI shows beside its
// workflow tasks) before any worker starts: the VCS revision it was built
// from, else the executable's size and modification time. Without a name
// the SDK's first worker reads the whole executable to hash it, and ours
// is over 200 MB: about half a second of every start of a process that
// runs a worker or the embedded server (whose own workers come first).
func NameBinary() {
	worker.SetBinaryChecksum(binaryName())
}

func binaryName() string {
	rev, modified := vcsRevision()
	if rev != "" && !modified {
		return rev
	}
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	st, err := os.Stat(exe)
	if err != nil {
		return "unknown"
	}
	stamp := fmt.Sprintf("%x-%x", st.Size(), st.ModTime().UnixNano())
	if rev != "" {
		return rev + "-modified-" + stamp
	}
	return "build-" + stamp
}
