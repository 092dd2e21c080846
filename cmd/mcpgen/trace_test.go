package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mcpgen call --trace prints every message between mcpgen and the server on stderr, one a
// line, in the order they went: the time since the command started (never going back),
// which way, the server, what it is, its size, and for a response the request it answers
// and the round trip. The progress and log notifications the tool sends come between its
// request and its response, which took at least the tool's 120 ms; the progress bar stays
// below the lines; stdout has the result only.
func TestCallTrace(t *testing.T) {
	configHome(t)
	dir := t.TempDir()
	path := writeConfig(t, dir, map[string]any{"steps": testServer("steps")})
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"mcpgen", "call", "steps", "work", "--trace", "--progress", "always", "--log-level", "off", "--trust", "--config", path}, &out, &errOut)
	if code != 0 || out.String() != "done\n" {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	line := regexp.MustCompile(`^ *(\d+\.\d{3})s ([→←]) steps  (.+)  \((\d+(?:\.\d)? (?:B|KiB))(?:, ([\d.]+ (?:µs|ms|s)))?\)$`)
	var what []string
	last := -1.0
	var callID string
	var callRTT string
	// The progress bar is drawn below the lines, rubbed out before each and drawn again.
	drawn := regexp.MustCompile(`\r|\x1b\[K|\[[=> ]+\] +\d+% \d+/\d+`).ReplaceAllString(errOut.String(), "")
	for _, l := range strings.Split(strings.TrimSpace(drawn), "\n") {
		if l = strings.TrimRight(l, " "); l == "" {
			continue // the bar's own line
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("not a trace line: %q", l)
			continue
		}
		at, _ := strconv.ParseFloat(m[1], 64)
		if at < last {
			t.Errorf("time goes back at %q", l)
		}
		last = at
		what = append(what, m[2]+" "+m[3])
		if id, ok := strings.CutPrefix(m[3], "tools/call work #"); ok && m[2] == "→" {
			callID = id
		}
		if callID != "" && m[3] == "#"+callID+" result of tools/call work" {
			callRTT = m[5]
		}
	}
	joined := strings.Join(what, "\n")
	call := strings.Index(joined, "→ tools/call work #")
	progress := strings.Index(joined, "← notifications/progress")
	result := strings.Index(joined, "← #"+callID+" result of tools/call work")
	if call < 0 || progress < call || result < progress || callID == "" {
		t.Fatalf("want the call, its progress, then its result; the trace was:\n%s", errOut.String())
	}
	if !strings.Contains(joined, "← #1 result of ") {
		t.Errorf("the first request's response does not name it:\n%s", joined)
	}
	d, err := time.ParseDuration(strings.ReplaceAll(strings.ReplaceAll(callRTT, " ", ""), "µs", "us"))
	if err != nil || d < 120*time.Millisecond {
		t.Errorf("the call's round trip is %q; the tool took at least 120 ms", callRTT)
	}
}

// The recorder reads what it is shown: an error response with the request it answers, a
// cancellation with the request it cancels, a batch as its messages, a request of the
// server's and the client's answer to it, and what is not JSON-RPC.
func TestFlightRecorder(t *testing.T) {
	var b bytes.Buffer
	f := newFlightRecorder(&b)
	f.record("s", false, []byte(`{"jsonrpc":"2.0","id":"a","method":"prompts/get","params":{"name":"review"}}`))
	f.record("s", false, []byte(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///x"}}`))
	f.record("s", false, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`))
	f.record("s", true, []byte(`[{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"unknown prompt"}},{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}]`))
	f.record("s", false, []byte(`{"jsonrpc":"2.0","id":9,"result":{}}`))
	f.record("s", true, []byte(`Listening on stdio`))
	want := []string{
		`→ s  prompts/get review #"a"  (`,
		`→ s  resources/read file:///x #2  (`,
		`→ s  notifications/cancelled #2 (resources/read file:///x)  (`,
		`← s  #"a" error -32602 of prompts/get review: unknown prompt  (`,
		`← s  sampling/createMessage #9  (`,
		`→ s  #9 result of sampling/createMessage  (`,
		`← s  (not JSON-RPC) Listening on stdio  (18 B)`,
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d: %q, want it to contain %q", i, lines[i], w)
		}
	}
}
