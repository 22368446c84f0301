package devtest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// TestLoginShellCommandsSeeTheProfileWithoutItsNoise: the model asks for
// `bash -lc` (as Step.Shell does) on a worker whose home has a noisy
// profile; it reads the variable the profile sets and none of the noise,
// and the profile is read once for the turn's two commands.
func TestLoginShellCommandsSeeTheProfileWithoutItsNoise(t *testing.T) {
	home := t.TempDir()
	profile := `echo "pyenv: cannot rehash: noise on stdout"
echo "noise on stderr" >&2
echo run >> "$HOME/runs"
export SNAP_VAR=from-profile
`
	if err := os.WriteFile(filepath.Join(home, ".bash_profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		{Shell: "echo first=$SNAP_VAR"}, {Shell: "echo second=$SNAP_VAR"}, {Text: "done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "snap", CommandEnv: map[string]string{"HOME": home}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, res := w.RunTurn(ctx, w.Config(""), "use the profile")
	if res.Status != "completed" {
		t.Fatalf("turn %s: %s", res.Status, res.Error)
	}
	if !w.Model.Server.LastRequestContains("first=from-profile") || !w.Model.Server.LastRequestContains("second=from-profile") {
		t.Error("the commands did not see the profile's variable")
	}
	if n := len(w.Model.Server.RequestsContaining("noise on")); n != 0 {
		t.Errorf("%d model requests carry the profile's noise", n)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "runs")); string(b) != "run\n" {
		t.Errorf("the profile ran %q, want once", b)
	}
}

// TestLoginZshCommandsSeeTheProfileWithoutItsNoise: the same with the
// model asking for `zsh -lc`; the variable comes from ~/.zprofile, the
// function from ~/.zlogin, and ~/.zshrc (interactive shells only) is not
// read, as by a login zsh.
func TestLoginZshCommandsSeeTheProfileWithoutItsNoise(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("zsh is not installed (CI installs it: .ci/run)")
		}
		t.Skip("zsh is not installed")
	}
	home := t.TempDir()
	for name, text := range map[string]string{
		".zprofile": "echo \"pyenv: cannot rehash: noise on stdout\"\necho \"noise on stderr\" >&2\necho run >> \"$HOME/runs\"\nexport SNAP_VAR=from-zprofile\n",
		".zlogin":   "greet() { echo \"greet=$1\" }\n",
		".zshrc":    "export SNAP_VAR=from-zshrc\n",
	} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zsh := func(cmd string) fakemodel.Step {
		args, _ := json.Marshal(map[string]any{"command": []string{"zsh", "-lc", cmd}})
		return fakemodel.Step{ToolCalls: []fakemodel.ToolCall{{Name: fakemodel.ShellToolName, Arguments: args}}}
	}
	w := Start(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{
		zsh("echo first=$SNAP_VAR; greet one"), zsh("echo second=$SNAP_VAR"), {Text: "done"},
	}}}})
	w.StartWorker(WorkerOptions{Name: "zsnap", CommandEnv: map[string]string{"HOME": home}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, res := w.RunTurn(ctx, w.Config(""), "use the zsh profile")
	if res.Status != "completed" {
		t.Fatalf("turn %s: %s", res.Status, res.Error)
	}
	for _, want := range []string{"first=from-zprofile", "greet=one", "second=from-zprofile"} {
		if !w.Model.Server.LastRequestContains(want) {
			t.Errorf("no %q in the model's last request", want)
		}
	}
	if n := len(w.Model.Server.RequestsContaining("noise on")); n != 0 {
		t.Errorf("%d model requests carry the profile's noise", n)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "runs")); string(b) != "run\n" {
		t.Errorf("the profile ran %q, want once", b)
	}
}
