#!/bin/sh
# The concurrency benchmark of issue 19: N threads started at once, each one
# 5-step turn against the fake model (200 ms per call), on a file-backed
# embedded server with one worker. Prints one line of figures per N, after
# the load average when it began.
#   dev/devtest/concurrency.sh            # N = 10 50 100 200
#   dev/devtest/concurrency.sh 10 50      # chosen N
#   BENCH_MODEL_MS=5 dev/devtest/concurrency.sh     # a fast model
#   BENCH_FOLLOW=1 dev/devtest/concurrency.sh       # each turn followed, as front ends do
#   BENCH_TEMPORAL_ADDRESS=127.0.0.1:7233 dev/devtest/concurrency.sh  # a server of its own
#   BENCH_VERBOSE=1 ...                   # also log each failed or timed-out workflow task
set -e
cd "$(dirname "$0")/../.."
go test -c -o /tmp/devtest-concurrency.test ./dev/devtest/
for n in ${@:-10 50 100 200}; do
  printf 'N=%s load=%s ' "$n" "$(cut -d' ' -f1 /proc/loadavg)"
  if [ -n "$BENCH_VERBOSE" ]; then
    BENCH_THREADS=$n /tmp/devtest-concurrency.test -test.run '^$' -test.bench ConcurrentThreads -test.benchtime 1x -test.v 2>&1 |
      grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok\)'
    continue
  fi
  BENCH_THREADS=$n /tmp/devtest-concurrency.test -test.run '^$' -test.bench ConcurrentThreads -test.benchtime 1x 2>&1 |
    grep '^BenchmarkConcurrentThreads' | sed 's/^BenchmarkConcurrentThreads-[0-9]*[[:space:]]*1[[:space:]]*[0-9]* ns\/op[[:space:]]*//'
done
