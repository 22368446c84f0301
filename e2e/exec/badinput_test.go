package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// Bad configuration and arguments are refused before anything starts, with
// one clear message and a non-zero exit.
func TestBadInputIsRefusedClearly(t *testing.T) {
	cases := []struct {
		name   string
		config string
		args   []string
		code   int
		want   string
	}{
		{"unknown key with --strict-config", "", []string{"--strict-config", "-c", "modle=x", "exec", "hi"}, 2, `"modle"`},
		{"unknown nested key", "[temporal]\nadress = \"x\"\n", []string{"--strict-config", "exec", "hi"}, 2, `"temporal.adress"`},
		{"malformed config.toml", "model = [\n", []string{"exec", "hi"}, 2, "config.toml:"},
		{"unknown provider", "", []string{"exec", "--provider", "nope", "hi"}, 2, "known:"},
		{"unknown wire_api", "[model_providers.x]\nbase_url = \"http://127.0.0.1:1\"\nwire_api = \"grpc\"\n", []string{"exec", "--provider", "x", "hi"}, 2, "wire_api"},
		{"unknown sandbox mode", "", []string{"exec", "--sandbox", "yolo", "hi"}, 2, "read-only"},
		{"unknown harness", "", []string{"exec", "--harness", "nope", "--provider", "demo", "hi"}, 2, "unknown harness"},
		{"harness that does not fit the wire API", "", []string{"exec", "--harness", "claude-code", "--provider", "demo", "hi"}, 2, "harnesses for responses: "},
		{"missing API key names the variable", "", []string{"exec", "--provider", "openai", "hi"}, 1, "OPENAI_API_KEY is not set"},
		{"no prompt", "", []string{"exec", "--provider", "demo"}, 2, "no prompt"},
		{"missing working directory", "", []string{"exec", "--provider", "demo", "-C", "/does/not/exist", "hi"}, 2, "does not exist"},
		{"unknown approval policy lists the valid ones", "", []string{"exec", "--approval-policy", "sometimes", "hi"}, 2, "untrusted, on-failure, on-request, never"},
		{"writable root that does not exist", "[sandbox_workspace_write]\nwritable_roots = [\"/does/not/exist\"]\n", []string{"exec", "--provider", "demo", "hi"}, 2, "writable root /does/not/exist does not exist"},
		{"--add-dir that does not exist", "", []string{"exec", "--provider", "demo", "--add-dir", "/does/not/exist", "hi"}, 2, "does not exist"},
		{"relative writable root", "", []string{"-c", "sandbox_workspace_write.writable_roots=[\"rel\"]", "exec", "--provider", "demo", "hi"}, 2, "must be an absolute path"},
		{"unknown default decision", "", []string{"-c", "approvals.default_decision=maybe", "exec", "--provider", "demo", "hi"}, 2, "approve, approve_for_session, deny, abort"},
		{"approve with an unknown decision", "", []string{"approve", "th", "item_0", "--decision", "maybe"}, 2, "--decision must be one of"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(e.Home, "config.toml"), []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			p := e.Start(tc.args...)
			code := p.Wait(30 * time.Second)
			if code != tc.code || !strings.Contains(p.Stderr.String(), tc.want) {
				t.Fatalf("exit %d (want %d), stderr:\n%s\nwant it to mention %s", code, tc.code, p.Stderr, tc.want)
			}
			if _, err := os.Stat(filepath.Join(e.Home, "temporal.db")); err == nil {
				t.Fatalf("a server was started for input that was refused")
			}
		})
	}
}

// An unknown thread id and a turn id are refused with a clear message; a
// prompt to a thread that is running a turn waits for it; the running turn
// is not disturbed.
func TestBadThreadRequestsAreRefused(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{DelayMs: 3000, Text: "slow"}}}}})
	dev := e.StartDev()
	defer dev.Kill()

	unknown := e.Exec("resume", "no-such-thread", "hello")
	if code := unknown.Wait(30 * time.Second); code != 1 || !strings.Contains(unknown.Stderr.String(), "thread not found: no-such-thread") {
		t.Fatalf("unknown thread: exit %d, stderr %s", code, unknown.Stderr)
	}

	first := e.Exec("--json", "take your time")
	first.WaitFor(func() bool { return strings.Contains(first.Stdout.String(), "thread.started") }, 30*time.Second, "thread.started")
	id := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, first.Stdout.String()))
	turnID := id + "/turn-1"
	asTurn := e.Exec("resume", turnID, "hello")
	if code := asTurn.Wait(30 * time.Second); code != 2 || !strings.Contains(asTurn.Stderr.String(), "that is a turn id ("+turnID+"); its thread is "+id) {
		t.Fatalf("resume with a turn id: exit %d, stderr %s", code, asTurn.Stderr)
	}
	// A prompt to a thread that is running a turn follows that turn to its
	// end, then runs (see resume_test.go).
	busy := e.Exec("resume", id, "are you done?")
	if code := busy.Wait(60 * time.Second); code != 0 || !strings.Contains(busy.Stderr.String(), "following it to its end, then your prompt") ||
		!strings.Contains(busy.Stderr.String(), id+"/turn-2") {
		t.Fatalf("busy thread: exit %d, stderr %s", code, busy.Stderr)
	}
	if code := first.Wait(60 * time.Second); code != 0 {
		t.Fatalf("the running turn was disturbed: exit %d, %s", code, first.Stderr)
	}
}

// A typo in config.toml is not silently ignored: every command warns on
// stderr, naming the key it is nearest to, and goes on.
func TestConfigTypoWarns(t *testing.T) {
	e := newEnv(t, nil)
	if err := os.WriteFile(filepath.Join(e.Home, "config.toml"), []byte("approval_polcy = \"never\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := e.Start("skills", "list")
	if code := p.Wait(30 * time.Second); code != 0 {
		t.Fatalf("skills list: exit %d, %s", code, p.Stderr)
	}
	want := "interpreter: warning: unknown config key approval_polcy (did you mean approval_policy?)\n"
	if strings.Count(p.Stderr.String(), want) != 1 {
		t.Fatalf("stderr %q, want it to say once %q", p.Stderr, want)
	}
}

// The API key is checked where the model call is made: a front end that
// only talks to a worker elsewhere sends the turn whatever its own
// environment holds, the worker with the key runs it, and a worker without
// it fails the turn at once with the message that names the variable.
func TestAPIKeyIsCheckedWhereTheCallIsMade(t *testing.T) {
	for _, workerHasKey := range []bool{true, false} {
		t.Run(fmt.Sprintf("worker has the key: %v", workerHasKey), func(t *testing.T) {
			e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "called"}}}}})
			keyed := []string{"-c", fmt.Sprintf("model_providers.fake={name=\"fake\", base_url=%q, wire_api=\"responses\", env_key=\"FAKE_PROVIDER_KEY_E2E\"}", e.Model.URL())}
			if workerHasKey {
				t.Setenv("FAKE_PROVIDER_KEY_E2E", "secret")
			}
			dev := e.Start(append(append([]string{"dev", "--headless", "--port", fmt.Sprint(e.Port)}, e.Config()...), keyed...)...)
			defer dev.Kill()
			dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
			os.Unsetenv("FAKE_PROVIDER_KEY_E2E")
			p := e.Exec(append(keyed, "hello")...)
			code := p.Wait(60 * time.Second)
			if workerHasKey {
				if code != 0 || !strings.Contains(p.Stdout.String(), "called") {
					t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, p.Stdout, p.Stderr)
				}
				return
			}
			if code != 1 || !strings.Contains(p.Stderr.String()+p.Stdout.String(), "FAKE_PROVIDER_KEY_E2E is not set: provider \"fake\" needs an API key in the worker's environment") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, p.Stdout, p.Stderr)
			}
			if n := len(e.Model.Server.Requests()); n != 0 {
				t.Fatalf("%d model requests without a key", n)
			}
		})
	}
}
