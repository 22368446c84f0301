// Drives `interpreter mcp-server` with the official MCP TypeScript SDK
// client over stdio. The Go end-to-end tests pass a JSON spec as the only
// argument:
//
//   {"command": "/path/interpreter", "args": ["mcp-server"], "env": {...},
//    "cwd": "/dir", "steps": [{"op": "list"},
//                             {"op": "call", "tool": "codex", "arguments": {...}}]}
//
// and read JSON lines from stdout, printed as things happen:
//   {"pid": N}                          the server process, once connected
//   {"event": {id, _meta, msg}}         each codex/event notification
//   {"step": i, "op": "list", "tools": [...]}
//   {"step": i, "op": "call", "result": {...}, "eventTypes": [...], "progress": n}
//   {"step": i, "op": "call", "error": "...", "eventTypes": [...]}
//   {"elicitation": params}             each elicitation/create, as sent
//   {"ok": true}                        at the end
//
// With "elicit" in the spec the client declares the elicitation capability
// and answers every elicitation/create with that object (e.g.
// {"action": "accept", "content": {}}); "elicit": "never" declares it and
// never answers.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const spec = JSON.parse(process.argv[2]);
const print = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

const transport = new StdioClientTransport({
  command: spec.command,
  args: spec.args ?? ["mcp-server"],
  env: spec.env,
  cwd: spec.cwd,
  stderr: "inherit",
});
const client = new Client(
  { name: "interpreter-e2e", version: "1.0.0" },
  spec.elicit ? { capabilities: { elicitation: {} } } : undefined,
);
if (spec.elicit) {
  client.setRequestHandler(ElicitRequestSchema, () =>
    spec.elicit === "never" ? new Promise(() => {}) : spec.elicit,
  );
}

let events = [];
client.fallbackNotificationHandler = async (n) => {
  if (n.method !== "codex/event") return;
  events.push(n.params);
  print({ event: n.params });
};

await client.connect(transport);
print({ pid: transport.pid });
// The SDK's schema drops the params it does not know (threadId, codex_*):
// print them as they came over the wire.
const onmessage = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.method === "elicitation/create") print({ elicitation: message.params });
  onmessage?.(message, extra);
};

for (const [i, step] of spec.steps.entries()) {
  events = [];
  try {
    if (step.op === "list") {
      const { tools } = await client.listTools();
      print({ step: i, op: "list", tools });
    } else if (step.op === "call") {
      let progress = 0;
      const result = await client.callTool(
        { name: step.tool, arguments: step.arguments },
        undefined,
        { timeout: step.timeoutMs ?? 180000, onprogress: () => progress++ },
      );
      print({ step: i, op: "call", result, eventTypes: events.map((e) => e.msg.type), progress });
    } else {
      throw new Error(`unknown op ${step.op}`);
    }
  } catch (err) {
    print({ step: i, op: step.op, error: String(err?.message ?? err), eventTypes: events.map((e) => e.msg.type) });
  }
}

await client.close();
print({ ok: true });
