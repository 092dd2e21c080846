package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of the notifications' params: a log message, progress, a cancellation, a
// resource's update (see codec_content.go for the convention). A notification's params
// that do not read are dropped by the receiver, as JSON-RPC lets it.

// encode writes a log message: data is a string or anything encoding/json writes.
func (m *LogMessage) encode(e *jsonwire.Encoder, data any) {
	e.ObjectStart()
	e.Key("level")
	e.String(string(m.Level))
	optionalString(e, "logger", m.Logger)
	e.Key("data")
	if s, ok := data.(string); ok {
		e.String(s)
	} else {
		e.Any(data)
	}
	e.ObjectEnd()
}

// decode reads a log message; its data as it came.
func (m *LogMessage) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "level":
			m.Level = LogLevel(readString(d))
		case "logger":
			m.Logger = readString(d)
		case "data":
			m.Data = d.RawCopy()
		default:
			d.Skip()
		}
	}
}

// encode writes a progress notification for the request whose token it names: total only
// when known (not 0).
func (n *ProgressNotice) encode(e *jsonwire.Encoder, token []byte) {
	e.ObjectStart()
	e.Key("progressToken")
	e.Raw(token)
	e.Key("progress")
	e.Float(n.Progress, 64)
	if n.Total > 0 {
		e.Key("total")
		e.Float(n.Total, 64)
	}
	optionalString(e, "message", n.Message)
	e.ObjectEnd()
}

// decode reads a progress notification; its token is the peer's business (progressed).
func (n *ProgressNotice) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "progress":
			if !d.Null() {
				n.Progress, _ = d.Float(64)
			}
		case "total":
			if !d.Null() {
				n.Total, _ = d.Float(64)
			}
		case "message":
			n.Message = readString(d)
		default:
			d.Skip()
		}
	}
}

// cancelledParams writes the params of notifications/cancelled: the id of the request, raw
// JSON, and why.
func cancelledParams(id []byte, reason string) []byte {
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("requestId")
	e.Raw(id)
	optionalString(&e, "reason", reason)
	e.ObjectEnd()
	return e.Bytes()
}

// uriParams writes the params of notifications/resources/updated: {"uri": uri}.
func uriParams(uri string) []byte {
	return append(append([]byte(`{"uri":`), jsonwire.AppendString(nil, uri)...), '}')
}
