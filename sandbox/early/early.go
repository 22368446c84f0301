// Package early makes the interpreter binary act as the sandbox helper as
// soon as the packages the helper needs are initialized, before the rest
// of the program (the Temporal server, the provider SDKs, the front ends)
// runs its package initializers. Every sandboxed command re-executes the
// binary as its helper, so that initialization was paid once per command:
// about 35 ms of a 47 ms start on an idle 2-core machine. It is imported
// for its side effect by cmd/interpreter only.
package early

import (
	"os"
	"os/signal"

	"github.com/interpreter-dev/interpreter/sandbox"
)

func init() {
	b, argv, ok := sandbox.HelperRequest(os.Args[1:])
	if !ok {
		return // not the helper, or arguments only the full CLI can judge
	}
	// As under the CLI, an interrupt does not end the helper (a handler,
	// unlike an ignored signal, is not inherited by the command); the
	// helper stops its command on SIGTERM and on the lifeline's end.
	signal.Notify(make(chan os.Signal, 1), os.Interrupt)
	sandbox.ExitRefused(b.ReportFD, sandbox.Enter(b, argv))
}
