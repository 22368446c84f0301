#!/bin/bash
# Re-records frontend/mcpserver/testdata/codex140_collab.jsonl: the collab
# messages that Codex 0.140's own `codex mcp-server` streams for a turn that
# spawns a sub-agent, spawns a second one over agents.max_threads = 1
# (refused), sends the first input, waits for it, closes and resumes it.
#
#   dev/codex140collab/record.sh CODEX_0_140_BINARY INTERPRETER_BINARY MCPCLIENT_DIR
#
# MCPCLIENT_DIR is e2e/mcpclient with its node_modules installed (npm ci).
# The model is our fake model (interpreter dev fake-model, script.json)
# behind proxy.py, which records each request under $WORK/reqs and puts the
# sub-agent calls in the multi_agent_v1 namespace, where 0.140 offers them.
# Nothing in CI runs this; the test compares our messages with the file.
set -euo pipefail
CODEX=$1 INTERP=$2 CLIENT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE/../../frontend/mcpserver/testdata/codex140_collab.jsonl
WORK=$(mktemp -d /tmp/codex140collab.XXXXXX)
mkdir -p "$WORK/home" "$WORK/cwd" "$WORK/reqs" "$WORK/ihome"
FAKE=18742 PROXY=18741
cat > "$WORK/home/config.toml" <<TOML
model = "gpt-5.1-codex"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$PROXY/v1"
wire_api = "responses"
requires_openai_auth = false
request_max_retries = 0
stream_max_retries = 0

[features]
multi_agent = true

[agents]
max_threads = 1
TOML
"$INTERP" --home "$WORK/ihome" dev fake-model --script "$HERE/script.json" --port $FAKE > "$WORK/fake.log" 2>&1 &
FP=$!
python3 "$HERE/proxy.py" http://127.0.0.1:$FAKE "$WORK/reqs" $PROXY &
PP=$!
trap 'kill $FP $PP' EXIT
for _ in $(seq 50); do
  curl -s -o /dev/null "http://127.0.0.1:$PROXY/" && break
  sleep 0.1
done
SPEC=$(python3 -c 'import json,sys; c,w=sys.argv[1:]; print(json.dumps({"command": c, "args": ["mcp-server"],
  "env": {"CODEX_HOME": w + "/home", "PATH": "/usr/bin:/bin", "HOME": w + "/cwd", "RUST_LOG": "warn"}, "cwd": w + "/cwd",
  "steps": [{"op": "call", "tool": "codex", "timeoutMs": 120000, "arguments": {"prompt": "spawn one sub-agent and report",
    "cwd": w + "/cwd", "approval-policy": "never", "sandbox": "danger-full-access"}}]}))' "$CODEX" "$WORK")
node "$CLIENT/client.mjs" "$SPEC" > "$WORK/out.jsonl" 2> "$WORK/client.err"
python3 "$HERE/normalise.py" < "$WORK/out.jsonl" > "$OUT"
echo "wrote $OUT (raw stream in $WORK/out.jsonl)"
