// Package jsonrpc reads and writes JSON-RPC 2.0 messages as MCP uses them: one JSON object
// per message, ids that are strings or numbers, params and results kept as raw JSON so that
// the layer above decodes them straight into their final types.
package jsonrpc

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Error codes of JSON-RPC 2.0.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Error is a JSON-RPC error object. Data, when set, is raw JSON.
type Error struct {
	Code    int
	Message string
	Data    []byte
}

func (e *Error) Error() string {
	return "jsonrpc error " + strconv.Itoa(e.Code) + ": " + e.Message
}

// NewError returns an error with the given code and message.
func NewError(code int, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Message is one decoded JSON-RPC message. Which of its fields are set tells its kind:
// a request has Method and ID, a notification Method only, a response ID (possibly null
// for an error about an unreadable request) and Result or Error.
//
// ID, Params and Result alias the bytes the message was parsed from.
type Message struct {
	ID     []byte // raw JSON: a string or a number; nil when absent
	Method string
	Params []byte // raw JSON object or array; nil when absent
	Result []byte // raw JSON; nil when absent
	Error  *Error
}

// IsRequest reports whether m expects a response.
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a notification.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports whether m answers an earlier request.
func (m *Message) IsResponse() bool { return m.Method == "" }

// A Parser decodes messages. It knows the method names of a protocol, so that a message
// naming one of them shares the known string rather than allocating its own: method names
// are read on every message. The zero Parser knows none. A Parser is safe for concurrent use.
type Parser struct {
	methods map[string]string
}

// NewParser returns a parser that knows the given method names.
func NewParser(methods ...string) *Parser {
	p := &Parser{methods: make(map[string]string, len(methods))}
	for _, name := range methods {
		p.methods[name] = name
	}
	return p
}

// Parse decodes one message with a parser that knows no method names.
func Parse(data []byte) (Message, *Error) {
	var p Parser
	return p.Parse(data)
}

// IsMalformedResponse reports whether a message that Parse refused was meant as a response
// (it has a result or an error, and no method): JSON-RPC gives those no reply.
func (m *Message) IsMalformedResponse() bool {
	return m.Method == "" && (m.Result != nil || m.Error != nil)
}

// Parse decodes one message. A message that is not JSON gives a -32700 error; one that is
// JSON but not a valid JSON-RPC 2.0 message gives -32600. When the error is -32600 and the id
// could be read, the returned message carries it so that the error response can echo it.
func (p *Parser) Parse(data []byte) (Message, *Error) {
	var m Message
	var d jsonwire.Decoder
	d.Reset(data)
	if k := d.Peek(); k != jsonwire.Object {
		d.Skip()
		d.Finish()
		if d.SyntaxError() {
			return m, &Error{Code: CodeParseError, Message: "parse error: " + d.Summary()}
		}
		if k == jsonwire.Array {
			return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: JSON-RPC batches are not supported"}
		}
		return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: a message must be a JSON object"}
	}
	var (
		version     string
		problem     string
		hasResult   bool
		hasError    bool
		hasMethod   bool
		idWasNull   bool
		errorObject []byte
	)
	for key := range d.Members {
		switch string(key) {
		case "jsonrpc":
			if d.Peek() == jsonwire.String {
				version, _ = d.String()
			} else {
				d.Skip()
				problem = `"jsonrpc" must be "2.0"`
			}
		case "id":
			switch d.Peek() {
			case jsonwire.String:
				// Echoed byte for byte, so it must be valid UTF-8 (escapes are ASCII).
				if raw := d.Raw(); utf8.Valid(raw) {
					m.ID = raw
				} else {
					problem = `"id" must be valid UTF-8`
				}
			case jsonwire.Number:
				// MCP ids are strings or integers, echoed byte for byte: only plain digits.
				if raw := d.Raw(); isInteger(raw) {
					m.ID = raw
				} else {
					problem = `"id" must be a string or an integer`
				}
			case jsonwire.Null:
				d.Skip()
				idWasNull = true
			default:
				d.Skip()
				problem = `"id" must be a string or an integer`
			}
		case "method":
			hasMethod = true
			if d.Peek() == jsonwire.String {
				name, _ := d.Text()
				m.Method = p.intern(name)
			} else {
				d.Skip()
				problem = `"method" must be a string`
			}
		case "params":
			switch d.Peek() {
			case jsonwire.Object, jsonwire.Array:
				m.Params = d.Raw()
			default:
				d.Skip()
				problem = `"params" must be an object or an array`
			}
		case "result":
			hasResult = true
			m.Result = d.Raw()
		case "error":
			hasError = true
			errorObject = d.Raw()
		default:
			d.Skip()
		}
	}
	d.Finish()
	if d.SyntaxError() {
		return Message{}, &Error{Code: CodeParseError, Message: "parse error: " + d.Summary()}
	}
	errorOK := false
	if hasError {
		m.Error, errorOK = parseErrorObject(errorObject)
	}
	switch {
	case problem != "":
	case version != "2.0":
		problem = `"jsonrpc" must be "2.0"`
	case hasMethod && m.Method == "":
		problem = `"method" must not be empty`
	case hasMethod && (hasResult || hasError):
		problem = "a message cannot have both a method and a result or error"
	case hasMethod && idWasNull:
		problem = `"id" must not be null`
	case !hasMethod && hasResult == hasError:
		problem = `a response must have exactly one of "result" and "error"`
	case !hasMethod && m.ID == nil && !hasError:
		problem = `a result response must have an "id"`
	case hasError && !errorOK:
		problem = `"error" must be an object with an integer "code" and a string "message"`
	}
	if problem != "" {
		return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: " + problem}
	}
	return m, nil
}

// ResponseID returns the id of a message Parse refused that was meant as a response: JSON
// that is not a valid response (IsMalformedResponse), or text that is not JSON but begins as
// a response does, its id then its "result" or "error" before the problem, and no "method"
// (a server that wrote `"structuredContent":}`, say). The side waiting for that response
// learns that it came and cannot be read, rather than wait for ever. It returns nil for
// anything else, and for a response whose id comes only after the problem.
func ResponseID(data []byte) []byte {
	var d jsonwire.Decoder
	d.Reset(data)
	if d.Peek() != jsonwire.Object {
		return nil
	}
	var id []byte
	var answered, hasMethod bool
	for key := range d.Members {
		switch string(key) {
		case "id":
			switch raw := d.Raw(); {
			case len(raw) > 0 && raw[0] == '"' && utf8.Valid(raw), isInteger(raw):
				id = raw
			}
		case "method":
			hasMethod = true
			d.Skip()
		case "result", "error":
			answered = true
			d.Skip()
		default:
			d.Skip()
		}
	}
	if hasMethod || !answered {
		return nil
	}
	return id
}

func isInteger(tok []byte) bool {
	if len(tok) > 0 && tok[0] == '-' {
		tok = tok[1:]
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(tok) > 0
}

// intern returns the known string equal to b, or a new one.
func (p *Parser) intern(b []byte) string {
	if s, ok := p.methods[string(b)]; ok {
		return s
	}
	return string(b)
}

func parseErrorObject(raw []byte) (*Error, bool) {
	var d jsonwire.Decoder
	d.Reset(raw)
	e := &Error{}
	var hasCode, hasMessage bool
	for key := range d.Members {
		switch string(key) {
		case "code":
			n, ok := d.Int()
			e.Code, hasCode = int(n), ok
		case "message":
			e.Message, hasMessage = d.String()
		case "data":
			e.Data = d.Raw()
		default:
			d.Skip()
		}
	}
	return e, hasCode && hasMessage && !d.Failed()
}

// AppendResult appends a result response. result must be a JSON object.
func AppendResult(buf, id, result []byte) []byte {
	const head, tail = len(`{"jsonrpc":"2.0","id":`) + len(`,"result":`), len(`}`)
	buf = slices.Grow(buf, head+len(id)+len(result)+tail) // one allocation, not one per append
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	buf = append(buf, `,"result":`...)
	buf = append(buf, result...)
	return append(buf, '}')
}

// AppendError appends an error response. A nil id, for a request whose id could not be
// read, leaves the id out: MCP's schema (2025-11-25 and later) makes it optional and never
// null, where plain JSON-RPC 2.0 would write null.
func AppendError(buf, id []byte, e *Error) []byte {
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	if id != nil {
		buf = append(buf, `,"id":`...)
		buf = append(buf, id...)
	}
	buf = append(buf, `,"error":`...)
	buf = AppendErrorObject(buf, e)
	return append(buf, '}')
}

// AppendErrorObject appends the error object itself: code, message and data.
func AppendErrorObject(buf []byte, e *Error) []byte {
	buf = append(buf, `{"code":`...)
	buf = strconv.AppendInt(buf, int64(e.Code), 10)
	buf = append(buf, `,"message":`...)
	buf = jsonwire.AppendString(buf, e.Message)
	if e.Data != nil {
		buf = append(buf, `,"data":`...)
		buf = append(buf, e.Data...)
	}
	return append(buf, '}')
}

// AppendRequest appends a request; params may be nil.
func AppendRequest(buf, id []byte, method string, params []byte) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	return appendMethod(buf, method, params)
}

// AppendNotification appends a notification; params may be nil.
func AppendNotification(buf []byte, method string, params []byte) []byte {
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	return appendMethod(buf, method, params)
}

func appendMethod(buf []byte, method string, params []byte) []byte {
	buf = append(buf, `,"method":`...)
	buf = jsonwire.AppendString(buf, method)
	if params != nil {
		buf = append(buf, `,"params":`...)
		buf = append(buf, params...)
	}
	return append(buf, '}')
}
