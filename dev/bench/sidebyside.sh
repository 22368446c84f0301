#!/bin/sh
# Side by side, in one run on one machine: the interpreter's benchmarks and
# the real Codex binaries, each with the scripted fake model of
# dev/fakemodel as its provider (the same scripts: a 3-step turn of two
# commands and the answer, a one-step reply, a 20-step turn of `echo step`
# commands, 50 threads at once with 5-step turns and a 200 ms model).
#
#   dev/bench/sidebyside.sh                # everything
#   ONLY=codex dev/bench/sidebyside.sh     # only the Codex side (ONLY=ours: only ours)
#   ROUNDS=10 THREADS=50 dev/bench/sidebyside.sh
#
# Codex binaries: 0.171 from `npm ci --prefix e2e/codexcli`, 0.140 from
# `npm i --prefix /tmp/codex140 @openai/codex@0.140.0` (CODEX171, CODEX140
# name others). 0.171 has no `mcp-server` and offers `exec_command` where
# 0.140 offers `shell_command`; both run the command in a login shell.
# CODEX_HOME_DIR sets the HOME Codex and its login shells run with
# (default: the user's, as our benchmarks run).
# Each run takes the shared machine's heavy lock (/work/coord/heavy.lock
# when it exists), so builds of others do not land in the middle of one.
set -e
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-10} THREADS=${THREADS:-50}
CODEX171=${CODEX171:-$(pwd)/e2e/codexcli/node_modules/.bin/codex}
CODEX140=${CODEX140:-/tmp/codex140/node_modules/.bin/codex}
LOCK=${LOCK:-/work/coord/heavy.lock}
CODEX_HOME_DIR=${CODEX_HOME_DIR:-$HOME}
# A login shell killed in the middle of pyenv's rehash (this machine's
# ~/.bashrc runs it) leaves its lock file, and every later `bash -l` then
# waits 60 s for it; .ci/run removes one nobody holds, and so does this.
stale() {
  lock="$HOME/.pyenv/shims/.pyenv-shim"
  if [ -e "$lock" ] && ! pgrep -f pyenv-rehash >/dev/null; then echo "# removing a stale pyenv rehash lock"; rm -f "$lock"; fi
}
locked() { stale; if [ -e "$LOCK" ]; then flock "$LOCK" "$@"; else "$@"; fi; }
bench() { sed -n 's/^\(Benchmark[^ \t]*\)-[0-9]*[ \t]*[0-9]*[ \t]*[0-9.]* ns\/op[ \t]*/\1 /p' | tr -s ' \t' ' '; }
load() { echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"; }
go build -o /tmp/sidebyside-codexdriver ./dev/bench/codexdriver
if [ "$ONLY" != codex ]; then
  go build -o /tmp/sidebyside-interpreter ./cmd/interpreter
  go test -c -o /tmp/sidebyside-cli.test ./cmd/interpreter/cli/
  go test -c -o /tmp/sidebyside-devtest.test ./dev/devtest/
fi
echo "# commit $(git rev-parse --short HEAD) $(date -u +%FT%TZ)"
if [ "$ONLY" != codex ]; then
  # The same driver and measurements as Codex's below, against the built
  # binary as a user runs it: `interpreter app-server` and `mcp-server`
  # with their embedded server (an SQLite file), the model family's own
  # tool (exec_command for gpt-5.1-codex).
  echo "## ours, the binary through the driver"
  load
  locked /tmp/sidebyside-codexdriver -interpreter -codex /tmp/sidebyside-interpreter -home "$CODEX_HOME_DIR" -tool exec_command -rounds "$ROUNDS" -threads "$THREADS" -what mcp,appserver,step,concurrent
  # In-process benchmarks: server, worker and front end in one test
  # binary (an in-memory database unless BENCH_FILE_DB=1 for the first).
  echo "## ours, in-process benchmarks"
  load
  locked /tmp/sidebyside-cli.test -test.run '^$' -test.bench 'MCP|AppServer' -test.benchtime ${ROUNDS}x | bench
  locked /tmp/sidebyside-devtest.test -test.run '^$' -test.bench 'Turn20Shell' -test.benchtime ${ROUNDS}x | bench
  BENCH_THREADS=$THREADS locked /tmp/sidebyside-devtest.test -test.run '^$' -test.bench ConcurrentThreads -test.benchtime 1x | bench
fi
if [ "$ONLY" != ours ]; then
  if [ -x "$CODEX140" ]; then
    echo "## codex 0.140"
    load
    locked /tmp/sidebyside-codexdriver -codex "$CODEX140" -home "$CODEX_HOME_DIR" -tool shell_command -rounds "$ROUNDS" -threads "$THREADS" -what mcp,appserver,step,concurrent
  else
    echo "## codex 0.140: $CODEX140 missing"
  fi
  if [ -x "$CODEX171" ]; then
    echo "## codex 0.171"
    load
    locked /tmp/sidebyside-codexdriver -codex "$CODEX171" -home "$CODEX_HOME_DIR" -tool exec_command -rounds "$ROUNDS" -threads "$THREADS" -what appserver,step,concurrent
  else
    echo "## codex 0.171: $CODEX171 missing"
  fi
fi
