package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseKinds(t *testing.T) {
	tests := []struct {
		in           string
		request      bool
		notification bool
		response     bool
		id, method   string
		params       string
	}{
		{in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, request: true, id: "1", method: "ping"},
		{in: `{"jsonrpc":"2.0","id":"a\"b","method":"things/list","params":{"cursor":"x"}}`, request: true, id: `"a\"b"`, method: "things/list", params: `{"cursor":"x"}`},
		{in: `{"method":"notifications/initialized","jsonrpc":"2.0"}`, notification: true, method: "notifications/initialized"},
		{in: `{"jsonrpc":"2.0","id":7,"result":{}}`, response: true, id: "7"},
		{in: `{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}`, response: true, id: "7"},
		{in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, response: true},
		{in: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse"}}`, response: true},
		{in: ` {"jsonrpc":"2.0","id":-15,"method":"x","extra":[1,2]} `, request: true, id: "-15", method: "x"},
	}
	for _, tt := range tests {
		m, err := Parse([]byte(tt.in))
		if err != nil {
			t.Errorf("Parse(%s): %v", tt.in, err)
			continue
		}
		if m.IsRequest() != tt.request || m.IsNotification() != tt.notification || m.IsResponse() != tt.response {
			t.Errorf("Parse(%s): kinds request=%v notification=%v response=%v", tt.in, m.IsRequest(), m.IsNotification(), m.IsResponse())
		}
		if string(m.ID) != tt.id || m.Method != tt.method || string(m.Params) != tt.params {
			t.Errorf("Parse(%s) = id %s method %q params %s", tt.in, m.ID, m.Method, m.Params)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		code int
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, CodeParseError, ""},
		{`not json`, CodeParseError, ""},
		{``, CodeParseError, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, CodeInvalidRequest, ""},
		{`"hello"`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, CodeInvalidRequest, "1"},
		{`{"id":1,"method":"ping"}`, CodeInvalidRequest, "1"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":2,"method":5}`, CodeInvalidRequest, "2"},
		{`{"jsonrpc":"2.0","id":2,"method":""}`, CodeInvalidRequest, "2"},
		{`{"jsonrpc":"2.0","id":3,"method":"x","params":"s"}`, CodeInvalidRequest, "3"},
		{`{"jsonrpc":"2.0","id":4}`, CodeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","result":{}}`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":"x"}}`, CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":6,"error":{"code":"x","message":"m"}}`, CodeInvalidRequest, "6"},
		{`{"jsonrpc":"2.0","id":7,"method":"x","result":{}}`, CodeInvalidRequest, "7"},
	}
	for _, tt := range tests {
		m, err := Parse([]byte(tt.in))
		if err == nil {
			t.Errorf("Parse(%s) accepted", tt.in)
			continue
		}
		if err.Code != tt.code || string(m.ID) != tt.id {
			t.Errorf("Parse(%s) = code %d id %s, want %d id %s (%s)", tt.in, err.Code, m.ID, tt.code, tt.id, err.Message)
		}
	}
}

func TestErrorWithoutIDOmitsIt(t *testing.T) {
	got := string(AppendError(nil, nil, NewError(CodeParseError, "bad")))
	if got != `{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}` {
		t.Fatalf("got %s", got)
	}
}

func TestAppendIsValidJSON(t *testing.T) {
	msgs := [][]byte{
		AppendResult(nil, []byte(`"x"`), []byte(`{"a":1}`)),
		AppendError(nil, nil, &Error{Code: CodeParseError, Message: "bad \"input\"\n"}),
		AppendError(nil, []byte("3"), &Error{Code: -32002, Message: "m", Data: []byte(`{"uri":"u"}`)}),
		AppendRequest(nil, []byte("9"), "roots/list", nil),
		AppendNotification(nil, "notifications/progress", []byte(`{"progress":1}`)),
	}
	for _, msg := range msgs {
		if !json.Valid(msg) {
			t.Errorf("invalid JSON: %s", msg)
		}
		if _, err := Parse(msg); err != nil {
			t.Errorf("Parse(%s): %v", msg, err)
		}
	}
}

// FuzzParse checks that no input makes Parse panic and that anything it accepts is JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, `[]`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if err == nil && !m.IsRequest() && !m.IsNotification() && !m.IsResponse() {
			t.Fatalf("accepted message of no kind: %q", data)
		}
	})
}

// A parser that knows a method name reads messages naming it without allocating the name.
func TestParserSharesKnownMethodNames(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"things/list"}`)
	known := NewParser("things/list")
	var unknown Parser
	a := testing.AllocsPerRun(100, func() { known.Parse(msg) })
	b := testing.AllocsPerRun(100, func() { unknown.Parse(msg) })
	if a != b-1 {
		t.Errorf("Parse allocates %v times with the method known, %v without; want one fewer", a, b)
	}
	if m, _ := known.Parse(msg); m.Method != "things/list" {
		t.Errorf("method %q", m.Method)
	}
}

func TestParseRefusesWhatCannotBeEchoedOrAnswered(t *testing.T) {
	// An id that is not valid UTF-8 is not echoed: the error response would not be valid JSON.
	m, err := Parse([]byte("{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}"))
	if err == nil || err.Code != CodeInvalidRequest || m.ID != nil || !strings.Contains(err.Message, "UTF-8") {
		t.Errorf("id with invalid UTF-8: %v, id %q", err, m.ID)
	}
	if m, err := Parse([]byte(`{"jsonrpc":"2.0","id":"caf\u00e9","method":"ping"}`)); err != nil || string(m.ID) != `"caf\u00e9"` {
		t.Errorf("an escaped id: %v, %q", err, m.ID)
	}
	// Malformed responses are known as responses, which get no reply.
	for _, msg := range []string{
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`,
		`{"jsonrpc":"1.0","id":1,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","result":{},"error":{"code":1,"message":"m"}}`,
	} {
		m, err := Parse([]byte(msg))
		if err == nil || !m.IsMalformedResponse() {
			t.Errorf("%s: %v, malformed response %v", msg, err, m.IsMalformedResponse())
		}
	}
	for _, msg := range []string{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1}`} {
		if m, err := Parse([]byte(msg)); err == nil || m.IsMalformedResponse() {
			t.Errorf("%s: %v, taken for a malformed response", msg, err)
		}
	}
}

// A response that cannot be read still names the request it answers when its id came
// first: the side that waits for it is told, rather than left waiting.
func TestResponseID(t *testing.T) {
	tests := []struct{ in, id string }{
		{`{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":}}`, "3"},
		{`{"jsonrpc":"2.0","id":"a","result":{"content":[`, `"a"`},
		{`{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":`, "4"},
		{`{"jsonrpc":"2.0","id":5,"error":{"code":"x","message":"m"}}`, "5"}, // JSON, not JSON-RPC
		{`{"jsonrpc":"2.0","id":6,"result":{},"error":{"code":1,"message":"m"}}`, "6"},
		{`{"id":7,"jsonrpc":"2.0","result":{} trailing`, "7"},
		// Nothing shows a response of a known id.
		{`{"jsonrpc":"2.0","id":8,"method":"ping","result":}`, ""},      // a request, perhaps
		{`{"jsonrpc":"2.0","result":{"x":},"id":9}`, ""},                // the id comes after the problem
		{`{"jsonrpc":"2.0","id":10,"resu`, ""},                          // no result yet
		{`{"jsonrpc":"2.0","id":1.5,"result":}`, ""},                    // not an id MCP uses
		{"{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"result\":}", ""},     // not one that can be matched
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"x":}`, ""}, // no id
		{`not json`, ""},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, ""},
	}
	for _, tt := range tests {
		if got := ResponseID([]byte(tt.in)); string(got) != tt.id {
			t.Errorf("ResponseID(%s) = %q, want %q", tt.in, got, tt.id)
		}
	}
}
