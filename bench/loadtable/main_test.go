package main

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	in := strings.Join([]string{
		`{"name":"floor","transport":"stdio","callsPerSec":200000,"cpuPerCallMicros":1.5}`,
		`{"name":"mcpgen","transport":"stdio","callsPerSec":100000,"cpuPerCallMicros":7}`,
		`{"name":"mcpgen","transport":"stdio","callsPerSec":120000,"cpuPerCallMicros":3}`,
		`{"name":"mcpgen","transport":"stdio","callsPerSec":90000,"cpuPerCallMicros":30}`, // a disturbed run
		`{"name":"mcp-go","transport":"stdio","callsPerSec":20000,"cpuPerCallMicros":60}`,
		`{"name":"go-sdk","transport":"stdio","callsPerSec":5000,"cpuPerCallMicros":250}`,
		`{"name":"mcpgen traced","transport":"stdio","callsPerSec":80000,"cpuPerCallMicros":9.5}`, // mcpgen's, not another's
		``,
		`{"name":"floor","transport":"http","callsPerSec":30000,"cpuPerCallMicros":30}`,
		`{"name":"mcpgen","transport":"http","callsPerSec":24000,"cpuPerCallMicros":36}`,
		`{"name":"mcpgen","transport":"http","callsPerSec":26000,"cpuPerCallMicros":40}`,
		`{"name":"mcp-go","transport":"http","callsPerSec":12500,"cpuPerCallMicros":90}`,
	}, "\n")
	var out bytes.Buffer
	if err := run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := `| | stdio calls/s | stdio server CPU/call | HTTP calls/s | HTTP server CPU/call |
|---|---|---|---|---|
| floor | 200.0k | 1.50 µs | 30.0k | 30.00 µs |
| mcpgen | 100.0k | 7.00 µs | 25.0k | 38.00 µs |
| mcp-go | 20.0k | 60.00 µs | 12.5k | 90.00 µs |
| go-sdk | 5.0k | 250.00 µs | | |
| mcpgen traced | 80.0k | 9.50 µs | | |

stdio: mcpgen's server CPU per call is 4.67x the floor's
stdio: mcpgen traced's server CPU per call is mcpgen's +2.50 µs (1.36x); it serves 0.80x its calls per second
stdio: mcpgen serves 5.00x the calls per second of the fastest other implementation (mcp-go)
http: mcpgen's server CPU per call is 1.27x the floor's
http: mcpgen serves 2.00x the calls per second of the fastest other implementation (mcp-go)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestBadInput(t *testing.T) {
	for _, in := range []string{"", "\n\n", `{"name":`} {
		if err := run(strings.NewReader(in), new(bytes.Buffer)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// Paired runs: each run of mcpgen is paired with the run of the base at the same place over
// the same transport and revision; the report is the median of the pairs' ratios and how
// many went each way, not the ratio of the medians (which a slow minute for one of the two
// would move).
func TestPaired(t *testing.T) {
	var lines []string
	// stdio: mcpgen is 10% worse in 3 pairs of 4; the machine slows down 3x in the third.
	for _, pair := range [][2]float64{{11, 10}, {33, 30}, {9, 10}, {11, 10}} {
		lines = append(lines,
			fmt.Sprintf(`{"name":"mcpgen","transport":"stdio","revision":"2025-06-18","callsPerSec":%g,"cpuPerCallMicros":%g}`, 1e6/pair[0], pair[0]),
			fmt.Sprintf(`{"name":"mcpgen at f00","transport":"stdio","revision":"2025-06-18","callsPerSec":%g,"cpuPerCallMicros":%g}`, 1e6/pair[1], pair[1]))
	}
	// HTTP, stateless: the same in both, but one run of the base is missing; a run of
	// another server is not paired.
	lines = append(lines,
		`{"name":"mcpgen","transport":"http","revision":"2026-07-28","callsPerSec":10000,"cpuPerCallMicros":50}`,
		`{"name":"floor","transport":"http","revision":"2026-07-28","callsPerSec":30000,"cpuPerCallMicros":20}`,
		`{"name":"mcpgen at f00","transport":"http","revision":"2026-07-28","callsPerSec":10000,"cpuPerCallMicros":50}`,
		`{"name":"mcpgen","transport":"http","revision":"2026-07-28","callsPerSec":10000,"cpuPerCallMicros":50}`)
	var out bytes.Buffer
	if err := paired(strings.NewReader(strings.Join(lines, "\n")), &out, "mcpgen", "mcpgen at f00"); err != nil {
		t.Fatal(err)
	}
	want := `mcpgen against mcpgen at f00, run by run in pairs: the median of the per-pair ratios (mcpgen / mcpgen at f00); "worse in" counts the pairs that went against mcpgen, p is a two-sided sign test's
stdio server CPU/call: 1.10x (worse in 3 of 4 pairs, p = 0.62); calls/s: 0.91x (fewer in 3 of 4, p = 0.62); medians 11.00 µs against 10.00 µs, 90.9k against 100.0k calls/s
HTTP stateless (2026-07-28) server CPU/call: 1.00x (worse in 0 of 1 pairs, p = 1.00); calls/s: 1.00x (fewer in 0 of 1, p = 1.00); medians 50.00 µs against 50.00 µs, 10.0k against 10.0k calls/s
  (HTTP stateless (2026-07-28): 2 runs of mcpgen, 1 of mcpgen at f00: the first 1 of each paired)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if err := paired(strings.NewReader(lines[0]), &out, "mcpgen", "mcpgen at f00"); err == nil {
		t.Error("no pairs: no error")
	}
}

func TestSignTest(t *testing.T) {
	for _, c := range []struct {
		k, j int
		p    float64
	}{{6, 6, 1}, {9, 3, 0.146}, {12, 0, 0.00049}, {11, 1, 0.0063}, {0, 0, 1}, {3, 9, 0.146}} {
		if p := signTest(c.k, c.j); math.Abs(p-c.p) > 0.0005 {
			t.Errorf("signTest(%d, %d) = %.5f, want %.5f", c.k, c.j, p, c.p)
		}
	}
}
