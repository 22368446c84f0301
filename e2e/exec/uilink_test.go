package exec

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

// With ports other than the defaults, exec still links to the dev
// server's Web UI; temporal.ui_url wins over it.
func TestExecLinksToTheUIOnAnyPort(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "ok"}}}}})
	uiPort, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dev := e.Start(append([]string{"dev", "--port", fmt.Sprint(e.Port), "--ui-port", fmt.Sprint(uiPort)}, e.Config()...)...)
	dev.WaitFor(func() bool { return strings.Contains(dev.Stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	defer dev.Kill()

	run := e.Exec("--json", "hello")
	if code := run.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exec: exit %d, %s", code, run.Stderr)
	}
	id := e2etest.ThreadIDOf(t, e2etest.JSONLines(t, run.Stdout.String()))
	want := fmt.Sprintf("watch this thread at http://127.0.0.1:%d/namespaces/default/workflows/%s", uiPort, id)
	if !strings.Contains(run.Stderr.String(), want) {
		t.Fatalf("stderr %q\nwant it to say %q", run.Stderr, want)
	}

	set := e.Exec("-c", "temporal.ui_url=https://ui.example/", "--json", "hello")
	if code := set.Wait(60 * time.Second); code != 0 || !strings.Contains(set.Stderr.String(), "watch this thread at https://ui.example/namespaces/default/workflows/") {
		t.Fatalf("with temporal.ui_url: exit %d, stderr %q", code, set.Stderr)
	}
}
