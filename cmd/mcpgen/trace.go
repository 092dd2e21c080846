package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/termtext"
)

// flightRecorder prints the messages between mcpgen and its servers as they go (--trace),
// for a person to read: when (since the command started), which way (→ to the server, ←
// from it), which server, what (the method and what it names, or the response and the
// request it answers), its size, and for a response the round trip since its request.
//
//	0.000s → weather  initialize #1  (198 B)
//	0.041s ← weather  #1 result of initialize  (412 B, 41.2 ms)
//	0.043s → weather  tools/call get_weather #2  (121 B)
//	0.097s ← weather  #2 error -32602 of tools/call get_weather: unknown tool  (88 B, 54.1 ms)
type flightRecorder struct {
	mu      sync.Mutex
	w       io.Writer
	start   time.Time
	pending map[string]sentRequest // by server, direction and id
}

// sentRequest is a request waiting for its response.
type sentRequest struct {
	at   time.Time
	what string // "tools/call get_weather"
}

func newFlightRecorder(w io.Writer) *flightRecorder {
	return &flightRecorder{w: w, start: time.Now(), pending: map[string]sentRequest{}}
}

// traceMessage is what the recorder reads of a message.
type traceMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// record prints one message (or each of a batch).
func (f *flightRecorder) record(server string, fromServer bool, msg []byte) {
	now := time.Now()
	var batch []json.RawMessage
	if t := strings.TrimSpace(string(msg)); strings.HasPrefix(t, "[") && json.Unmarshal(msg, &batch) == nil {
		for _, m := range batch {
			f.one(now, server, fromServer, m, len(m))
		}
		return
	}
	f.one(now, server, fromServer, msg, len(msg))
}

func (f *flightRecorder) one(now time.Time, server string, fromServer bool, msg []byte, size int) {
	arrow := "→"
	if fromServer {
		arrow = "←"
	}
	var m traceMessage
	what, rtt := "", ""
	f.mu.Lock()
	defer f.mu.Unlock()
	switch err := json.Unmarshal(msg, &m); {
	case err != nil:
		what = "(not JSON-RPC) " + clip(strings.TrimSpace(string(msg)), 60)
	case m.Method != "":
		what = m.Method
		if target := paramTarget(m.Params); target != "" {
			what += " " + target
		}
		if m.Method == "notifications/cancelled" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &p) == nil && len(p.RequestID) > 0 {
				// The request it cancels went the same way.
				what += " #" + string(p.RequestID)
				if req, ok := f.pending[pendingKey(server, !fromServer, p.RequestID)]; ok {
					what += " (" + req.what + ")"
				}
			}
		}
		if len(m.ID) > 0 && string(m.ID) != "null" {
			// A request: its response goes the other way.
			f.pending[pendingKey(server, !fromServer, m.ID)] = sentRequest{at: now, what: what}
			what += " #" + string(m.ID)
		}
	default:
		key := pendingKey(server, fromServer, m.ID)
		req, ok := f.pending[key]
		delete(f.pending, key)
		what = "#" + string(m.ID) + " result"
		if m.Error != nil {
			what = fmt.Sprintf("#%s error %d", m.ID, m.Error.Code)
		}
		if ok {
			what += " of " + req.what
			rtt = ", " + roundTrip(now.Sub(req.at))
		}
		if m.Error != nil {
			what += ": " + clip(m.Error.Message, 80)
		}
	}
	// What a message names (a method, a tool, an error's message) is the other side's: one
	// line of text.
	fmt.Fprintf(f.w, "%8.3fs %s %s  %s  (%s%s)\n", now.Sub(f.start).Seconds(), arrow, server, termtext.Line(what), byteSize(size), rtt)
}

// pendingKey identifies a request by its server, the way its response comes, and its id.
func pendingKey(server string, responseFromServer bool, id json.RawMessage) string {
	return fmt.Sprintf("%s\x00%v\x00%s", server, responseFromServer, id)
}

// paramTarget is what a request names: a tool or prompt, or a resource.
func paramTarget(params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if p.Name != "" {
		return p.Name
	}
	return clip(p.URI, 60)
}

func roundTrip(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func byteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
}
