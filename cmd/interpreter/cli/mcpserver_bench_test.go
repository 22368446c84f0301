package cli

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/interpreter-dev/interpreter/dev/devtest"
	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/frontend/mcpserver"
	"github.com/interpreter-dev/interpreter/frontend/threads"
	"github.com/interpreter-dev/interpreter/workflows"
)

// BenchmarkMCPCodexAndReply measures, through an MCP client, a codex call
// whose turn takes 3 fake-model steps (two commands, then the answer), a
// one-step codex-reply sent at once (ms/reply), and another sent once the
// thread has taken in that turn (ms/reply-settled), against the embedded
// server with a warm worker (server, worker, fake model and MCP server in
// one process).
//
//	go test ./cmd/interpreter/cli/ -run '^$' -bench MCP -benchtime 30x
//
// BENCH_LOCAL_MODEL_CALLS=1 runs every model call as a local activity, 0
// as a regular activity (unset: the default, local within a budget, then handed off);
// BENCH_FILE_DB=1 keeps the server's state in an SQLite file, as
// `interpreter dev` does (the default is in memory).
func BenchmarkMCPCodexAndReply(b *testing.B) {
	w := benchWorld(b, &fakemodel.Script{Turns: []fakemodel.Turn{
		{Match: "reply", Steps: []fakemodel.Step{{Text: "replied"}}},
		benchThreeSteps(),
	}})
	w.StartWorker(devtest.WorkerOptions{Name: "bench"})
	session := benchSession(b, w)
	ctx := context.Background()
	call := func(tool string, args map[string]any) string {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", tool, err, res)
		}
		return res.StructuredContent.(map[string]any)["threadId"].(string)
	}
	// Warm up: first workflow and activity tasks, connections, caches.
	call(mcpserver.ToolReply, map[string]any{"threadId": call(mcpserver.ToolCodex, map[string]any{"prompt": "warm up"}), "prompt": "reply"})

	var codex, reply, settled durations
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		id := call(mcpserver.ToolCodex, map[string]any{"prompt": "three steps"})
		t1 := time.Now()
		call(mcpserver.ToolReply, map[string]any{"threadId": id, "prompt": "reply"})
		codex, reply = append(codex, t1.Sub(t0)), append(reply, time.Since(t1))
		// A reply to a thread that has taken in its last turn (a client
		// that reads the answer before replying).
		b.StopTimer()
		awaitSettled(b, w, id)
		b.StartTimer()
		t2 := time.Now()
		call(mcpserver.ToolReply, map[string]any{"threadId": id, "prompt": "reply"})
		settled = append(settled, time.Since(t2))
	}
	b.StopTimer()
	codex.report(b, "codex")
	reply.report(b, "reply")
	settled.report(b, "reply-settled")
}

// awaitSettled waits until the thread has taken in its last turn's result
// and its workflow task is done.
func awaitSettled(b *testing.B, w *devtest.World, threadID string) {
	ctx := context.Background()
	for {
		v, err := threads.Read(ctx, w.Client, threadID)
		if err != nil {
			b.Fatal(err)
		}
		if v.RunningTurn == "" {
			return
		}
	}
}

// benchSession serves the tools over w and connects an SDK client.
func benchSession(b testing.TB, w *devtest.World) *mcp.ClientSession {
	g, loaded := benchConfig(b, w, "approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n")
	be := mcpserver.NewTemporalBackend(context.Background(), mcpserver.TemporalOptions{
		TaskQueue: loaded.Temporal.TaskQueue,
		Connect: func(context.Context) (mcpserver.Conn, error) {
			return mcpserver.Conn{Client: w.Client, SearchAttributes: true}, nil
		},
		Resolve: func(args mcpserver.CodexArgs) (workflows.ThreadConfig, error) {
			return mcpThreadConfig(g, &backend{client: w.Client}, args)
		},
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := mcpserver.New(be, mcpserver.Options{Cwd: w.Dir}).Connect(ctx, st); err != nil {
		b.Fatal(err)
	}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}
