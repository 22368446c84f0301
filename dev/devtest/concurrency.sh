#!/bin/sh
# The concurrency benchmark of issue 19: N threads started at once, each one
# 5-step turn against the fake model (200 ms per call), on a file-backed
# embedded server with one worker. Prints one line of figures per N.
#   dev/devtest/concurrency.sh            # N = 10 50 100 200
#   dev/devtest/concurrency.sh 10 50      # chosen N
set -e
cd "$(dirname "$0")/../.."
go test -c -o /tmp/devtest-concurrency.test ./dev/devtest/
for n in ${@:-10 50 100 200}; do
  printf 'N=%s ' "$n"
  BENCH_THREADS=$n /tmp/devtest-concurrency.test -test.run '^$' -test.bench ConcurrentThreads -test.benchtime 1x 2>&1 |
    grep '^BenchmarkConcurrentThreads' | sed 's/^BenchmarkConcurrentThreads-[0-9]*[[:space:]]*1[[:space:]]*[0-9]* ns\/op[[:space:]]*//'
done
