package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/interpreter-dev/interpreter/activities/mcpclient"
	"github.com/interpreter-dev/interpreter/harness"
)

// mcpPool is the worker's cache of MCP sessions, made on first use.
type mcpPool struct {
	once sync.Once
	pool *mcpclient.Pool
}

// MCP returns this worker's pool of MCP sessions.
func (a *Activities) MCP() *mcpclient.Pool {
	a.mcp.once.Do(func() {
		a.mcp.pool = mcpclient.NewPool(mcpclient.DefaultPoolSize, mcpclient.Secrets{Env: a.MCPEnv, Getenv: a.Getenv})
	})
	return a.mcp.pool
}

// CloseMCP closes every MCP session (stdio servers' processes end).
func (a *Activities) CloseMCP() {
	a.MCP().Close()
}

// MCPListToolsInput names the MCP servers of a turn.
type MCPListToolsInput struct {
	ThreadID string             `json:"thread_id"`
	Servers  []mcpclient.Server `json:"servers"`
	// Taken are names the model already has (the harness's tools and the
	// dynamic tools); MCP tools get other names.
	Taken []string `json:"taken,omitempty"`
}

// MCPListToolsOutput is the tools the servers offer and a warning for each
// optional server that failed.
type MCPListToolsOutput struct {
	Tools    []harness.ExternalTool `json:"tools,omitempty"`
	Warnings []string               `json:"warnings,omitempty"`
}

// ErrMCPRequired is the type of the non-retryable error of a required MCP
// server that failed to start.
const ErrMCPRequired = "MCPRequiredServerFailed"

// MCPListTools connects to every server (each within its startup timeout,
// all at once) and lists their tools, filtered and named as the model sees
// them (mcp__<server>__<tool>, see [mcpclient.Namer]); their JSON Schemas
// are passed on as the servers give them. An optional server that fails
// gives a warning; a required one fails the activity with a non-retryable
// error naming the server.
func (a *Activities) MCPListTools(ctx context.Context, in MCPListToolsInput) (MCPListToolsOutput, error) {
	type listed struct {
		tools []mcpclient.Tool
		err   error
	}
	results := make([]listed, len(in.Servers))
	var wg sync.WaitGroup
	for i, s := range in.Servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].tools, results[i].err = a.MCP().ListTools(ctx, in.ThreadID, s)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return MCPListToolsOutput{}, ctx.Err()
	}
	var out MCPListToolsOutput
	namer := mcpclient.NewNamer(in.Taken...)
	for i, s := range in.Servers {
		if err := results[i].err; err != nil {
			if s.Required {
				return out, temporal.NewNonRetryableApplicationError(
					fmt.Sprintf("required %v", err), ErrMCPRequired, nil)
			}
			out.Warnings = append(out.Warnings, fmt.Sprintf("%v; the turn goes on without its tools", err))
			continue
		}
		for _, t := range results[i].tools {
			out.Tools = append(out.Tools, harness.ExternalTool{Name: namer.Name(s.Name, t.Name), Description: t.Description,
				Parameters: t.InputSchema, Source: harness.SourceMCP, Server: s.Name, Tool: t.Name})
		}
	}
	return out, nil
}

// MCPListTimeout bounds [Activities.MCPListTools] for a set of servers:
// they start at once, each within its startup timeout, then list.
func MCPListTimeout(servers []mcpclient.Server) time.Duration {
	var longest time.Duration
	for _, s := range servers {
		longest = max(longest, s.Startup())
	}
	return 2*longest + 10*time.Second
}

// MCPCallToolInput is one call of an MCP server's tool.
type MCPCallToolInput struct {
	ThreadID string           `json:"thread_id"`
	CallID   string           `json:"call_id"`
	Server   mcpclient.Server `json:"server"`
	// Tool is the tool's name on the server.
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	MaxOutput int             `json:"max_output,omitempty"`
}

// MCPCallToolOutput is what the model reads: the tool's output, redacted
// and bounded, or an error that names the server.
type MCPCallToolOutput struct {
	Output  string `json:"output"`
	IsError bool   `json:"is_error,omitempty"`
	// DurationMs is how long the call took (with the server's start, if
	// it had to be started).
	DurationMs int64 `json:"duration_ms,omitempty"`
}

// MCPCallTool calls a tool once. A tool that reports an error, times out
// (tool_timeout_sec), or whose server fails to start or dies during the
// call is a normal result the model reads; the next call reconnects.
//
// It heartbeats while the call runs, rarely when the turn gives it a long
// heartbeat timeout ([Activities.keepAliveEvery]): a worker lost on this
// machine is found through its peers' lock files instead, and a stopped
// turn ends the call through [Activities.StopCommand], which names its
// call id.
func (a *Activities) MCPCallTool(ctx context.Context, in MCPCallToolInput) (MCPCallToolOutput, error) {
	ctx, unstop := a.stoppable(ctx, in.CallID)
	defer unstop()
	if activity.IsActivity(ctx) {
		ka := a.newKeepAlive(ctx)
		done := make(chan struct{})
		defer close(done)
		go func() {
			defer ka.stop()
			for {
				select {
				case <-done:
					return
				case <-ka.C():
					if ka.due() {
						// The call id lets a stop that reached another worker
						// of the host find this one (worker: stopqueue.go).
						activity.RecordHeartbeat(ctx, MCPProgress{CallID: in.CallID})
					}
				}
			}
		}()
	}
	start := time.Now()
	res, err := a.MCP().CallTool(ctx, in.ThreadID, in.Server, in.Tool, in.Arguments, in.MaxOutput)
	if err != nil {
		return MCPCallToolOutput{}, err
	}
	return MCPCallToolOutput{Output: res.Text, IsError: res.IsError, DurationMs: max(time.Since(start).Milliseconds(), 1)}, nil
}

// MCPProgress is an MCP call's heartbeat: which call it is.
type MCPProgress struct {
	CallID string `json:"call_id"`
}

// MCPCallTimeout bounds [Activities.MCPCallTool]: starting the server
// (when it is not running) and the call.
func MCPCallTimeout(s mcpclient.Server) time.Duration {
	return s.Startup() + s.CallTimeout() + 10*time.Second
}
