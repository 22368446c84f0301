package schematest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// The committed bundle must be exactly what the real Codex 0.140.0 prints,
// so the validation in the other tests is against the reference and not
// against a copy that drifted. The binary comes from npm
// (e2e/codexschema, installed by .ci/run and the README's test command;
// linux-x64, the CI machine's platform).
func TestBundleIsWhatCodexGenerates(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "..", "..", "..", "e2e", "codexschema")
	// The platform package alone: npm ci cannot install the wrapper package
	// from a lock file, because its platform aliases are optional.
	bin := filepath.Join(dir, "node_modules", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the reference Codex CLI is not installed (%v): run `npm ci --prefix e2e/codexschema`", err)
	}
	out := t.TempDir()
	cmd := exec.Command(bin, "app-server", "generate-json-schema", "--out", out)
	cmd.Env = append(os.Environ(), "CODEX_HOME="+t.TempDir())
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("codex app-server generate-json-schema: %v\n%s", err, b)
	}
	got, err := os.ReadFile(filepath.Join(out, "codex_app_server_protocol.schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(File())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from what Codex 0.140.0 generates (%d vs %d bytes); regenerate it (see testdata/schema/README.md)", File(), len(want), len(got))
	}
}
