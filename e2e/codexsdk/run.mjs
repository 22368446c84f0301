// Drives the interpreter binary through the official Codex TypeScript SDK
// (@openai/codex-sdk), exactly as an application would drive `codex`: the
// SDK spawns `<codexPath> exec --experimental-json ...` and reads its JSON
// event lines.
//
// Usage: node run.mjs SPEC   (SPEC is a JSON string or a path to a JSON file;
//        without an argument the CODEXSDK_SPEC environment variable is used)
//
// SPEC:
//   codexPath      the binary the SDK runs (codexPathOverride)
//   env            the complete environment of that binary (the SDK passes
//                  exactly this, not process.env)
//   apiKey         optional: the SDK's apiKey option (sent as CODEX_API_KEY)
//   baseUrl        optional: the SDK's baseUrl option (sent as
//                  --config openai_base_url=...)
//   config         optional: the SDK's config option (sent as --config k=v)
//   threadOptions  options of startThread/resumeThread (workingDirectory,
//                  model, sandboxMode, ...); skipGitRepoCheck defaults to true
//   steps          [{op: "start"|"resume"|"continue", prompt, threadId?,
//                    streamed?, images?, outputSchema?, cyberAccessProgram?}]
//                  start:    codex.startThread(threadOptions)
//                  resume:   codex.resumeThread(threadId or the last id)
//                  continue: the previous step's Thread object again
//
// Prints one JSON line per step, as it completes:
//   {step, op, threadId, finalResponse, itemTypes, items, usage, eventTypes}
// (eventTypes only for streamed steps), then {"ok": true}. Any error is
// printed to stderr and the exit code is 1.

import { readFileSync } from "node:fs";
import { Codex } from "@openai/codex-sdk";

function loadSpec() {
  const raw = process.argv[2] ?? process.env.CODEXSDK_SPEC;
  if (!raw) {
    throw new Error("no spec: pass it as the first argument or in CODEXSDK_SPEC");
  }
  const text = raw.trimStart().startsWith("{") ? raw : readFileSync(raw, "utf8");
  return JSON.parse(text);
}

function input(step) {
  if (!step.images?.length) {
    return step.prompt;
  }
  return [
    { type: "text", text: step.prompt },
    ...step.images.map((path) => ({ type: "local_image", path })),
  ];
}

function turnOptions(step) {
  return { outputSchema: step.outputSchema, cyberAccessProgram: step.cyberAccessProgram };
}

// runStreamed, summarised the way Thread.run summarises a turn, plus the
// event types seen.
async function runStreamed(thread, step) {
  const { events } = await thread.runStreamed(input(step), turnOptions(step));
  const eventTypes = [];
  const items = [];
  let finalResponse = "";
  let usage = null;
  let threadId = null;
  for await (const event of events) {
    eventTypes.push(event.type);
    switch (event.type) {
      case "thread.started":
        threadId = event.thread_id;
        break;
      case "item.completed":
        items.push(event.item);
        if (event.item.type === "agent_message") {
          finalResponse = event.item.text;
        }
        break;
      case "turn.completed":
        usage = event.usage;
        break;
      case "turn.failed":
        throw new Error(`turn failed: ${event.error?.message}`);
      case "error":
        throw new Error(`stream error: ${event.message}`);
    }
  }
  return { threadId, items, finalResponse, usage, eventTypes };
}

async function main() {
  const spec = loadSpec();
  if (!spec.codexPath) {
    throw new Error("spec.codexPath is required");
  }
  const codex = new Codex({
    codexPathOverride: spec.codexPath,
    env: spec.env ?? {},
    apiKey: spec.apiKey,
    baseUrl: spec.baseUrl,
    config: spec.config,
  });
  const threadOptions = { skipGitRepoCheck: true, ...(spec.threadOptions ?? {}) };

  let thread = null;
  let lastId = null;
  for (const [i, step] of (spec.steps ?? []).entries()) {
    switch (step.op) {
      case "start":
        thread = codex.startThread(threadOptions);
        break;
      case "resume": {
        const id = step.threadId ?? lastId;
        if (!id) throw new Error(`step ${i}: resume without a thread id`);
        thread = codex.resumeThread(id, threadOptions);
        break;
      }
      case "continue":
        if (!thread) throw new Error(`step ${i}: continue without a thread`);
        break;
      default:
        throw new Error(`step ${i}: unknown op ${JSON.stringify(step.op)}`);
    }
    let summary;
    if (step.streamed) {
      summary = await runStreamed(thread, step);
    } else {
      const turn = await thread.run(input(step), turnOptions(step));
      summary = { items: turn.items, finalResponse: turn.finalResponse, usage: turn.usage };
    }
    lastId = thread.id;
    const line = {
      step: i,
      op: step.op,
      threadId: thread.id,
      finalResponse: summary.finalResponse,
      itemTypes: summary.items.map((it) => it.type),
      items: summary.items,
      usage: summary.usage,
    };
    if (summary.eventTypes) {
      line.eventTypes = summary.eventTypes;
      line.streamThreadId = summary.threadId;
    }
    process.stdout.write(JSON.stringify(line) + "\n");
  }
  process.stdout.write(JSON.stringify({ ok: true }) + "\n");
}

main().catch((err) => {
  process.stderr.write(`run.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
