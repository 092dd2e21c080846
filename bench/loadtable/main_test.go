package main

import (
	"bytes"
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
