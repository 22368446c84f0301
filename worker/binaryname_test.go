package worker

import (
	"strings"
	"testing"
)

// The binary's name is found without reading the executable, and is the
// same each time (one process reports one name).
func TestBinaryNameIsStableAndKnown(t *testing.T) {
	a, b := binaryName(), binaryName()
	if a == "" || a == "unknown" || a != b {
		t.Fatalf("binary names %q, %q: want one known name", a, b)
	}
	// A test binary carries no VCS revision: it is named by its file.
	if !strings.HasPrefix(a, "build-") {
		t.Fatalf("binary name %q: want a file stamp (build-SIZE-MTIME)", a)
	}
}
