#!/usr/bin/env bash
# Benchmarks mcpgen against the official Go SDK and mcp-go (bench/) and compares them with
# benchstat: the servers (one raw client drives each), then the clients (each against
# mcpgen's server).
# Usage: scripts/bench.sh [count]   (default 10). Run it on a quiet machine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT/bench"

count=${1:-10}
out="$CACHE/bench"
mkdir -p "$out"
go test -run '^$' -bench . -benchmem -count "$count" -benchtime 3000x | tee "$out/raw.txt"
header=$(grep -E '^(goos|goarch|pkg|cpu):' "$out/raw.txt")
benchstat() { (cd "$out" && go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$@"); }

# One file per implementation, with the implementation's name taken out of the benchmark
# name, so that benchstat compares them line by line.
for impl in go-sdk mcpgen; do
  { echo "$header"; grep -E "^Benchmark[A-Za-z]+/$impl-[0-9]+ " "$out/raw.txt" | sed -E "s#/$impl-#-#"; } > "$out/server-$impl.txt"
done
say "benchstat, servers: the official Go SDK (base) against mcpgen"
benchstat server-go-sdk.txt server-mcpgen.txt

for impl in go-sdk mcp-go mcpgen-2025-11-25 mcpgen; do
  { echo "$header"; grep -E "^BenchmarkClientToolCall/[a-z]+/$impl-[0-9]+ " "$out/raw.txt" | sed -E "s#/$impl-#-#"; } > "$out/client-$impl.txt"
done
say "benchstat, clients against mcpgen's server: go-sdk (base), mcp-go, mcpgen at 2025-11-25 (their revision), mcpgen (2026-07-28)"
benchstat client-go-sdk.txt client-mcp-go.txt client-mcpgen-2025-11-25.txt client-mcpgen.txt
