package e2etest

import (
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/interpreter-dev/interpreter/dev/devserver"
	"github.com/interpreter-dev/interpreter/workflows"
)

// StartServer starts a Temporal server on port in this test process (so
// it outlives the workers a test kills) and returns a client of it.
func StartServer(t *testing.T, port int) client.Client {
	t.Helper()
	srv, err := devserver.Start(devserver.Options{Ephemeral: true, Port: port, SearchAttributes: workflows.SearchAttributeTypes()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	c, err := client.Dial(client.Options{HostPort: srv.Address(), Logger: QuietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// Worker starts `interpreter worker` and waits until it polls; it returns
// the process and when it was ready.
func (e *Env) Worker(environ ...string) (*Proc, time.Time) {
	e.T.Helper()
	p := e.StartWith(environ, append([]string{"worker"}, e.Config()...)...)
	p.WaitFor(func() bool { return strings.Contains(p.Stdout.String(), "Worker connected") }, 60*time.Second, "the worker to connect")
	return p, time.Now()
}
