// Command mcptest-server serves the MCP test server of package mcptest
// over stdio, for tests whose processes are not the test binary (a
// worker, the built interpreter).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/interpreter-dev/interpreter/dev/mcptest"
)

func main() {
	if err := mcptest.NewServer(nil).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
