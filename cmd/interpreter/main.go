// Command interpreter is a coding agent whose every step is a durable
// Temporal workflow step.
package main

import (
	"os"

	"github.com/interpreter-dev/interpreter/cmd/interpreter/cli"
	_ "github.com/interpreter-dev/interpreter/sandbox/early" // the sandbox helper starts before everything else initializes
)

func main() {
	os.Exit(cli.Run(os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
