#!/usr/bin/env bash
# Benchmarks mcpgen against the official Go SDK and mcp-go (bench/), in two ways:
#
#   load  whole processes: the same driver (bench/load) runs 20,000 tools/call requests, 16
#         in flight, against examples/weather, the same tool served by go-sdk and by mcp-go,
#         and the floor (a do-nothing server with a canned answer), over stdio and over
#         Streamable HTTP; every server is run ROUNDS times in turns, and the table gives
#         the medians of calls per second and of the server process's CPU time per call.
#         When the OpenTelemetry Collector of the tests is built (.cache/otelcol, which
#         test.sh builds), examples/weather runs again as "mcpgen traced": every call a span
#         (OTEL_TRACES_SAMPLER=always_on) and the durations histograms, exported over OTLP to
#         that collector, which counts and drops them. With BASE=REV (a commit, branch or
#         tag) the table is followed by the paired comparison below (PAIRS pairs, 12 by
#         default).
#   paired
#         BASE=REV only: examples/weather as it is (the work tree) against itself as it was
#         at REV, both built alike (-trimpath, from this module), run by run in turns: a run
#         of one, then a run of the other over the same transport, the order swapped every
#         pair, over stdio, Streamable HTTP with sessions (2025-06-18) and Streamable HTTP
#         stateless (2026-07-28); 12 pairs by default. The report gives, per transport, the
#         median of the per-pair ratios (now / REV) of server CPU per call and of calls/s,
#         how many pairs went against now, and a sign test's p, such as
#           HTTP server CPU/call: 1.03x (worse in 8 of 12 pairs, p = 0.39); calls/s: ...
#         Pairs, not rounds of medians: on 2 shared cores the same binary's CPU per call
#         moves by 30% from one minute to the next, which a pair's two runs, seconds apart,
#         share. A median ratio near 1.00x with the pairs split near evenly is no change; a
#         split of 10 or more of 12 (p < 0.04) is one. Quote it in every closing note that
#         touches a hot path: BASE=main before landing, or the commit before the change.
#   go    in-process go test -bench of the servers (one raw client drives each) and of the
#         clients (each against mcpgen's server), compared with benchstat, COUNT runs each.
#
#   codegraph
#         examples/codegraph on the Go standard library and on this repository (copies of
#         them): cold and incremental index times, store size, and the latency of its tools
#         through MCP beside gopls (pinned) on the same questions: its command line against a
#         warm daemon, and gopls mcp; with the agreement of their answers (bench/codegraph).
#         Not part of the default run: it takes minutes.
#   codesearch
#         examples/codesearch on $(go env GOROOT)/src and on a node_modules (installed here
#         with npm ci from bench/codesearch/testdata/npm, outside any git repository) beside
#         ripgrep (the Debian package, installed when missing) and git grep: cold index time
#         and size, warm restart time, 20 fixed queries each, RUNS times (see
#         bench/codesearch); then its evaluation of questions in words over GOROOT/src
#         (examples/codesearch/eval: hits@10 and MRR of BM25, vectors and their fusion, with
#         the index's time and memory). Not part of the default run.
#
# Usage: [BASE=REV [PAIRS=N]] scripts/bench.sh [load|go] [ROUNDS|COUNT]   (both by default; 5 rounds, 10 runs).
#        BASE=REV scripts/bench.sh paired [PAIRS]      (12 pairs; about 4 minutes)
#        scripts/bench.sh codesearch [RUNS]           (10 runs)
#        scripts/bench.sh codegraph [ROUNDS]          (5 rounds)
# Run it on a quiet machine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT/bench"

what=all
case "${1:-}" in
  load | go | codesearch | codegraph | paired) what=$1; shift ;;
esac
out="$CACHE/bench"
mkdir -p "$out"

if [ "$what" = codegraph ]; then
  out="$CACHE/bench/codegraph"
  mkdir -p "$out"
  (cd "$ROOT" && go build -o "$out/codegraph" ./examples/codegraph)
  go build -o "$out/bench" ./codegraph
  gopls_version=v0.23.0 # the version examples/codegraph/goplsref names
  gopls="$CACHE/gopls-$gopls_version/gopls"
  [ -x "$gopls" ] || GOBIN="$CACHE/gopls-$gopls_version" go install "golang.org/x/tools/gopls@$gopls_version"
  # The corpora are copies, so that the incremental run's edit touches nothing else: GOROOT
  # as hard links (the edit renames a new file over one link), this repository as committed.
  say "copying GOROOT and this repository into $out"
  rm -rf "$out/goroot" "$out/mcpgen"
  cp -al "$(go env GOROOT)" "$out/goroot" 2>/dev/null || cp -a "$(go env GOROOT)" "$out/goroot"
  mkdir -p "$out/mcpgen"
  git -C "$ROOT" archive HEAD | tar -x -C "$out/mcpgen"
  say "codegraph against gopls $gopls_version (load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)"
  GOROOT="$out/goroot" PATH="$out/goroot/bin:$PATH" "$out/bench" -codegraph "$out/codegraph" -gopls "$gopls" -out "$out" \
    -rounds "${1:-5}" \
    -corpus std="$out/goroot/src" -edit std=net/http/httptest/recorder.go \
    -corpus mcpgen="$out/mcpgen" -edit mcpgen=examples/weather/weather.go | tee "$out/table.md"
  say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi

if [ "$what" = codesearch ]; then
  runs=${1:-10}
  debian_packages rg=ripgrep git=git
  bin="$out/bin"
  go build -o "$bin/codesearch-bench" ./codesearch
  (cd "$ROOT" && go build -o "$bin/codesearch" ./examples/codesearch)
  # The node_modules lives outside the repository, so that no .gitignore of ours applies to
  # it (git grep --exclude-standard would take this repository's).
  npm_dir="${TMPDIR:-/tmp}/mcpgen-codesearch-bench"
  mkdir -p "$npm_dir"
  if ! cmp -s codesearch/testdata/npm/package-lock.json "$npm_dir/package-lock.json" || [ ! -d "$npm_dir/node_modules" ]; then
    say "installing the node_modules corpus (bench/codesearch/testdata/npm) into $npm_dir"
    cp codesearch/testdata/npm/package.json codesearch/testdata/npm/package-lock.json "$npm_dir/"
    npm_ci "$npm_dir"
  fi
  say "codesearch benchmark: $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(rg --version | head -1); $(git --version); $(go version)"
  # search_code is timed without the model, whose vectors would be computed in the background
  # meanwhile (the evaluation below measures them).
  export CODESEARCH_MODEL=/nonexistent/no-model.bin
  "$bin/codesearch-bench" -server "$bin/codesearch" -corpus "$(go env GOROOT)/src" -queries go -runs "$runs" -name "GOROOT/src ($(go env GOVERSION))"
  "$bin/codesearch-bench" -server "$bin/codesearch" -corpus "$npm_dir/node_modules" -queries node -runs "$runs" -name "node_modules (bench/codesearch/testdata/npm: typescript, eslint, react, express, lodash, @types/node)"
  say "codesearch: questions in words over GOROOT/src (examples/codesearch/eval): BM25, the built-in model's vectors, their fusion"
  unset CODESEARCH_MODEL
  (cd "$ROOT" && go run ./examples/codesearch --install-model && go run ./examples/codesearch/eval -v)
  say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi

# paired_load runs examples/weather now and at $BASE in pairs (see the header) and prints
# the paired report.
paired_load() {
  local pairs=$1 bin="$out/bin" base_src pair era first second
  go build -o "$bin/" ./load ./loadtable
  (cd "$ROOT" && go build -trimpath -o "$bin/weather-now" ./examples/weather)
  base_src=$(mktemp -d)
  git -C "$ROOT" archive "$BASE" | tar -x -C "$base_src"
  (cd "$base_src" && go build -trimpath -o "$bin/weather-base" ./examples/weather)
  rm -rf "$base_src"
  if cmp -s "$bin/weather-now" "$bin/weather-base"; then
    say "the two binaries are identical: what follows is the noise of pairs"
  fi
  say "paired: mcpgen (the work tree) against mcpgen at $BASE, $pairs pairs (load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)"
  : > "$out/paired.jsonl"
  for pair in $(seq "$pairs"); do
    first=("mcpgen" "$bin/weather-now") second=("mcpgen at $BASE" "$bin/weather-base")
    if [ $((pair % 2)) = 0 ]; then
      first=("mcpgen at $BASE" "$bin/weather-base") second=("mcpgen" "$bin/weather-now")
    fi
    for era in "" "-http" "-http -stateless"; do
      # shellcheck disable=SC2086 # era is flags, split on purpose
      "$bin/load" -json -name "${first[0]}" $era -- "${first[1]}" >> "$out/paired.jsonl"
      # shellcheck disable=SC2086
      "$bin/load" -json -name "${second[0]}" $era -- "${second[1]}" >> "$out/paired.jsonl"
    done
    printf 'pair %d of %d\n' "$pair" "$pairs"
  done
  say "paired: load average after: $(cut -d' ' -f1-3 /proc/loadavg); runs in $out/paired.jsonl"
  "$bin/loadtable" -paired "mcpgen at $BASE" < "$out/paired.jsonl" | tee "$out/paired.txt"
}

if [ "$what" = paired ]; then
  [ -n "${BASE:-}" ] || { echo "paired needs BASE=REV, the commit to compare with" >&2; exit 2; }
  paired_load "${1:-12}"
  exit 0
fi

if [ "$what" != go ]; then
  rounds=${1:-5}
  bin="$out/bin"
  go build -o "$bin/" ./load ./loadtable ./servers/floor ./servers/gosdk ./servers/mcpgo github.com/mcpgen/mcpgen/examples/weather
  servers=("floor=$bin/floor" "mcpgen=$bin/weather" "mcp-go=$bin/mcpgo" "go-sdk=$bin/gosdk")
  traced=()
  collector=$(ls "$CACHE"/otelcol/*/otelcol 2>/dev/null | head -1 || true)
  if [ -n "$collector" ]; then
    port=$((20000 + RANDOM % 20000))
    printf '{"receivers":{"otlp":{"protocols":{"http":{"endpoint":"127.0.0.1:%s"}}}},"exporters":{"debug":{"verbosity":"basic"}},"service":{"telemetry":{"metrics":{"level":"none"},"logs":{"sampling":{"enabled":false}}},"pipelines":{"traces":{"receivers":["otlp"],"exporters":["debug"]},"metrics":{"receivers":["otlp"],"exporters":["debug"]}}}}' "$port" > "$out/otelcol.json"
    "$collector" --config="file:$out/otelcol.json" > "$out/otelcol.log" 2>&1 &
    collector_pid=$!
    trap 'kill $collector_pid 2>/dev/null || true' EXIT
    for _ in $(seq 100); do grep -q "Everything is ready" "$out/otelcol.log" && break; sleep 0.1; done
    grep -q "Everything is ready" "$out/otelcol.log" || { cat "$out/otelcol.log"; echo "the collector did not start" >&2; exit 1; }
    servers+=("mcpgen traced=$bin/weather")
    traced=(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$port" OTEL_TRACES_SAMPLER=always_on OTEL_SERVICE_NAME=weather)
  fi
  : > "$out/load.jsonl"
  for round in $(seq "$rounds"); do
    say "load, round $round of $rounds"
    for transport in stdio http; do
      flags=()
      [ "$transport" = http ] && flags=(-http)
      for s in "${servers[@]}"; do
        env=()
        [ "${s%%=*}" = "mcpgen traced" ] && env=("${traced[@]}")
        env "${env[@]}" "$bin/load" -json -name "${s%%=*}" "${flags[@]}" -- "${s#*=}" | tee -a "$out/load.jsonl"
      done
    done
  done
  say "load: medians of $rounds rounds (20,000 calls, 16 in flight; server CPU = user + system time of the server process)"
  "$bin/loadtable" < "$out/load.jsonl"
  if [ -n "$collector" ]; then
    kill "$collector_pid" && wait "$collector_pid" || true
    spans=$(grep -o '"spans": [0-9]*' "$out/otelcol.log" | awk '{n += $2} END {print n + 0}')
    # The debug exporter logs a line for each batch it is sent (unsampled, as configured
    # above): the spans the SDK dropped, if its queue overflowed, are missing from them.
    say "mcpgen traced: the collector received $spans spans, from $((rounds * 2)) runs of 20,000 calls (and each run's initialize and initialized)"
  fi
  [ -n "${BASE:-}" ] && paired_load "${PAIRS:-12}"
  [ "$what" = load ] && exit 0
fi

count=${1:-10}
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

for impl in go-sdk mcp-go mcpgen-2025-11-25 mcpgen raw-2025-11-25 raw; do
  { echo "$header"; grep -E "^BenchmarkClientToolCall/[a-z]+/$impl-[0-9]+ " "$out/raw.txt" | sed -E "s#/$impl-#-#"; } > "$out/client-$impl.txt"
done
say "benchstat, clients against mcpgen's server: go-sdk (base), mcp-go, mcpgen at 2025-11-25 (their revision), mcpgen (2026-07-28), and the floor: raw bytes, no client library, at 2025-11-25 and 2026-07-28"
benchstat client-go-sdk.txt client-mcp-go.txt client-mcpgen-2025-11-25.txt client-mcpgen.txt client-raw-2025-11-25.txt client-raw.txt
