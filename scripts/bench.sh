#!/usr/bin/env bash
# Benchmarks mcpgen against the official Go SDK (bench/) and compares them with benchstat.
# Usage: scripts/bench.sh [count]   (default 10). Run it on a quiet machine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT/bench"

count=${1:-10}
out="$CACHE/bench"
mkdir -p "$out"
go test -run '^$' -bench . -benchmem -count "$count" -benchtime 3000x | tee "$out/raw.txt"

# One file per implementation, with the implementation's name taken out of the benchmark
# name, so that benchstat compares them line by line.
header=$(grep -E '^(goos|goarch|pkg|cpu):' "$out/raw.txt")
for impl in go-sdk mcpgen; do
  { echo "$header"; grep -E "^Benchmark[A-Za-z]+/$impl-" "$out/raw.txt" | sed -E "s#/$impl##"; } > "$out/$impl.txt"
done
say "benchstat: the official Go SDK (base) against mcpgen"
cd "$out" && go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da go-sdk.txt mcpgen.txt
