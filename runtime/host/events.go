package host

import (
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/internal/termtext"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// State is where a server is in its life in the host.
type State string

const (
	// Connecting: the host is starting the server's process, or reaching its URL, and
	// learning what it offers.
	Connecting State = "connecting"
	// Ready: connected; its tools, prompts and resources are in the registry.
	Ready State = "ready"
	// Failed: the last attempt failed, or the connection was lost; the host tries again
	// after a pause that doubles each time (ServerStatus.Retry says when).
	Failed State = "failed"
	// GaveUp: the server was never ready, and Options.GiveUpAfter attempts in a row failed;
	// the host tries no more (Err says why the last one failed). Calls to it fail with
	// ErrNotReady, as for a failed server.
	GaveUp State = "gave up"
	// Stopped: the host is closed.
	Stopped State = "stopped"
)

// EventKind says what an Event is about.
type EventKind string

const (
	EventState    EventKind = "state"    // a server's State changed; Err says why it failed
	EventStderr   EventKind = "stderr"   // a line a stdio server wrote to stderr (Line)
	EventLog      EventKind = "log"      // a log message from a server (Log)
	EventCall     EventKind = "call"     // a call ended (Tool, Duration, Outcome, Err)
	EventRegistry EventKind = "registry" // the registry changed (Detail says how)
)

// Outcomes of a call.
const (
	OutcomeOK        = "ok"         // the tool answered
	OutcomeToolError = "tool error" // the tool answered with isError
	OutcomeError     = "error"      // no answer: timeout, cancellation, lost connection, protocol error
)

// Event is one thing that happened in a host, for a status page or a log.
type Event struct {
	Time   time.Time
	Kind   EventKind
	Server string

	State State // EventState
	Err   error // EventState (why it failed), EventCall (why there was no answer)

	Line string          // EventStderr
	Log  *mcp.LogMessage // EventLog

	Tool     string        // EventCall: the qualified name (or server/method for other requests)
	Duration time.Duration // EventCall
	Outcome  string        // EventCall: OutcomeOK, OutcomeToolError or OutcomeError

	Detail string // EventRegistry, EventState: more words
}

// String writes the event as one log line. What a server chose (its stderr, its log
// messages, the errors it answered with, a tool's name) is shown as text (internal/termtext):
// printed at a terminal, no part of it moves the cursor, redraws the screen or begins a line
// of its own.
func (e Event) String() string {
	s := e.Time.Format("15:04:05.000") + " " + e.Server + " "
	switch e.Kind {
	case EventState:
		s += string(e.State)
		if e.Detail != "" {
			s += " (" + e.Detail + ")"
		}
		if e.Err != nil {
			s += ": " + e.Err.Error()
		}
	case EventStderr:
		s += "stderr: " + e.Line
	case EventLog:
		s += fmt.Sprintf("log %s: %s", e.Log.Level, e.Log.Data)
	case EventCall:
		s += fmt.Sprintf("call %s %s in %s", e.Tool, e.Outcome, e.Duration.Round(time.Microsecond))
		if e.Err != nil {
			s += ": " + e.Err.Error()
		}
	default:
		s += string(e.Kind) + ": " + e.Detail
	}
	return termtext.Line(s)
}

// emit hands an event to the subscriber. Events come from the servers' goroutines and the
// callers' ones, so the subscriber sees them one at a time, in the order they happened.
func (h *Host) emit(e Event) {
	if h.opts.Events == nil {
		return
	}
	e.Time = time.Now()
	h.emu.Lock()
	defer h.emu.Unlock()
	h.opts.Events(e)
}
