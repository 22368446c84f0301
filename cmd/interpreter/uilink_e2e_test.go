package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
)

// With ports other than the defaults, exec still links to the dev
// server's Web UI; temporal.ui_url wins over it.
func TestExecLinksToTheUIOnAnyPort(t *testing.T) {
	e := newEnv(t, &fakemodel.Script{Turns: []fakemodel.Turn{{Steps: []fakemodel.Step{{Text: "ok"}}}}})
	uiPort, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dev := e.start(append([]string{"dev", "--port", fmt.Sprint(e.port), "--ui-port", fmt.Sprint(uiPort)}, e.config()...)...)
	dev.waitFor(func() bool { return strings.Contains(dev.stdout.String(), "Ready.") }, 60*time.Second, "dev to be ready")
	defer dev.kill()

	run := e.exec("--json", "hello")
	if code := run.wait(60 * time.Second); code != 0 {
		t.Fatalf("exec: exit %d, %s", code, run.stderr)
	}
	id := threadIDOf(t, jsonLines(t, run.stdout.String()))
	want := fmt.Sprintf("watch this thread at http://127.0.0.1:%d/namespaces/default/workflows/%s", uiPort, id)
	if !strings.Contains(run.stderr.String(), want) {
		t.Fatalf("stderr %q\nwant it to say %q", run.stderr, want)
	}

	set := e.exec("-c", "temporal.ui_url=https://ui.example/", "--json", "hello")
	if code := set.wait(60 * time.Second); code != 0 || !strings.Contains(set.stderr.String(), "watch this thread at https://ui.example/namespaces/default/workflows/") {
		t.Fatalf("with temporal.ui_url: exit %d, stderr %q", code, set.stderr)
	}
}
