package codexschema

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// The committed bundles must be exactly what the real Codex releases
// print, so the validation in the other tests is against the reference
// and not against a copy that drifted. The binaries come from npm
// (e2e/codexschema for 0.140.0, e2e/codexcli for 0.171.0, installed by
// .ci/run and the README's test command; linux-x64, the CI machine's
// platform).
func TestBundlesAreWhatCodexGenerates(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	e2e := filepath.Join(filepath.Dir(self), "..", "..", "e2e")
	for version, pkg := range map[string]string{"0.140": "codexschema", "0.171": "codexcli", Experimental: "codexcli"} {
		t.Run(version, func(t *testing.T) {
			// The platform package's binary: npm ci cannot always install
			// the wrapper package from a lock file, because its platform
			// aliases are optional.
			bin := filepath.Join(e2e, pkg, "node_modules", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
			if _, err := os.Stat(bin); err != nil {
				t.Fatalf("the reference Codex CLI %s is not installed (%v): run `npm ci --prefix e2e/%s`", version, err, pkg)
			}
			out := t.TempDir()
			args := []string{"app-server", "generate-json-schema", "--out", out}
			if version == Experimental {
				args = append(args, "--experimental")
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "CODEX_HOME="+t.TempDir())
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("codex app-server generate-json-schema: %v\n%s", err, b)
			}
			got, err := os.ReadFile(filepath.Join(out, "codex_app_server_protocol.schemas.json"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(File(version))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from what Codex %s generates (%d vs %d bytes); regenerate it (see testdata/schema/README.md)", File(version), version, len(want), len(got))
			}
		})
	}
}
