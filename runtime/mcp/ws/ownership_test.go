package ws

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Over WebSocket, as over HTTP (runtime/mcp's ownership tests), a task belongs to the
// caller whose token made it (issuer, subject and client id), and a subscription reaches
// only what its caller may see. The caller of a conversation is the token of its handshake,
// which mcp.GuardHTTP verifies.

// taskMeta is the _meta of a request of revision 2026-07-28 from a client that declares
// roots and the tasks extension.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// serveGuarded serves srv over WebSocket behind mcp.GuardHTTP, with a verifier that knows
// the tokens, until the test ends.
func serveGuarded(t *testing.T, srv *mcp.Server, tokens map[string]*mcp.AuthInfo) string {
	t.Helper()
	verifier := mcp.TokenVerifierFunc(func(ctx context.Context, token string) (*mcp.AuthInfo, error) {
		if a := tokens[token]; a != nil {
			return a, nil
		}
		return nil, errors.New("unknown token")
	})
	h := NewHandler(srv, nil)
	s := httptest.NewServer(mcp.GuardHTTP(&mcp.HTTPOptions{Auth: &mcp.AuthOptions{Verifier: verifier}}, h))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		s.Close()
	})
	return wsURL(s)
}

// rawConn is a conversation over WebSocket in JSON-RPC as written: the test sees each answer
// byte for byte, and the notifications apart.
type rawConn struct {
	c       *websocket.Conn
	answers chan []byte         // responses
	notes   chan map[string]any // notifications
}

// dial opens a conversation with the token (none if ""); it is closed when the test ends.
func dial(t *testing.T, url, token string) *rawConn {
	t.Helper()
	header := http.Header{}
	if token != "" {
		header.Set("Authorization", "Bearer "+token)
	}
	c, _, err := websocket.Dial(t.Context(), url, &websocket.DialOptions{Subprotocols: []string{Subprotocol}, HTTPHeader: header})
	if err != nil {
		t.Fatalf("%s: %v", token, err)
	}
	r := &rawConn{c: c, answers: make(chan []byte, 16), notes: make(chan map[string]any, 64)}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			_, data, err := c.Read(context.Background())
			if err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(data, &m) != nil {
				t.Errorf("%s: not JSON: %s", token, data)
				continue
			}
			answers, notes := r.answers, r.notes // one of them: a nil channel takes nothing
			if _, ok := m["method"]; ok {
				answers = nil
			} else {
				notes = nil
			}
			select {
			case answers <- data:
			case notes <- m:
			case <-stop: // the test reads no more
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		c.Close(websocket.StatusNormalClosure, "")
		<-done
	})
	return r
}

// call sends a request of revision 2026-07-28 and returns its answer as written.
func (r *rawConn) call(t *testing.T, method, params string) []byte {
	t.Helper()
	if params != "" {
		params += ","
	}
	req := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + params + taskMeta + `}}`
	if err := r.c.Write(t.Context(), websocket.MessageText, []byte(req)); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case a := <-r.answers:
		return a
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no answer within 10s", method)
		return nil
	}
}

// result is the result of an answer; the test fails if it is an error.
func result(t *testing.T, answer []byte) map[string]any {
	t.Helper()
	var m struct{ Result map[string]any }
	if json.Unmarshal(answer, &m) != nil || m.Result == nil {
		t.Fatalf("want a result: %s", answer)
	}
	return m.Result
}

// listen opens a subscription to the notifications and returns its acknowledgement's
// notifications, or fails the test; it is cancelled with the conversation.
func (r *rawConn) listen(t *testing.T, notifications string) map[string]any {
	t.Helper()
	req := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":` + notifications + `,` + taskMeta + `}}`
	if err := r.c.Write(t.Context(), websocket.MessageText, []byte(req)); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-r.notes:
		if n["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("listen: got %v first, want the acknowledgement", n)
		}
		return n["params"].(map[string]any)["notifications"].(map[string]any)
	case a := <-r.answers:
		t.Fatalf("listen: %s; want an acknowledgement", a)
	case <-time.After(10 * time.Second):
		t.Fatal("listen: no acknowledgement within 10s")
	}
	return nil
}

// A second user can neither read (its questions, its result), answer nor cancel another's
// task over WebSocket, nor list it or hear of it: to them it is an unknown id, answered byte
// for byte as one. Nor can the same user through another client, or a namesake of another issuer. Its
// caller can.
func TestTasksBelongToTheirCaller(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
	srv.AddTool(mcp.Tool{Name: "report", InputSchema: `{"type":"object"}`, Task: mcp.TaskRequired, Handler: func(ctx context.Context, c *mcp.ToolCall) {
		roots, err := mcp.Roots(ctx)
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText("the secret report, for " + roots[0].Name)
	}})
	url := serveGuarded(t, srv, map[string]*mcp.AuthInfo{
		"ada":              {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app"},
		"bob":              {Issuer: "https://auth.example.com", Subject: "bob", ClientID: "app"},
		"ada-other-client": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "other"},
		"ada-other-issuer": {Issuer: "https://evil.example.com", Subject: "ada", ClientID: "app"},
	})
	ada := dial(t, url, "ada")
	id, _ := result(t, ada.call(t, "tools/call", `"name":"report"`))["taskId"].(string)
	if id == "" {
		t.Fatal("tools/call made no task")
	}
	// Ada's task is over before the test ends, whatever fails: its body does not outlive it.
	defer ada.call(t, "tasks/cancel", `"taskId":"`+id+`"`)
	get := func(r *rawConn) map[string]any { return result(t, r.call(t, "tasks/get", `"taskId":"`+id+`"`)) }
	var task map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if task = get(ada); task["status"] == "input_required" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task did not ask within 10s: %v", task)
		}
	}
	var key string
	for k := range task["inputRequests"].(map[string]any) {
		key = k
	}
	answer := func(name string) string {
		return `,"inputResponses":{"` + key + `":{"roots":[{"uri":"file:///home","name":"` + name + `"}]}}`
	}

	others := []string{"bob", "ada-other-client", "ada-other-issuer"}
	heard := map[string]*rawConn{}
	for _, who := range others {
		c := dial(t, url, who)
		heard[who] = c
		for _, q := range []struct{ method, params string }{
			{"tasks/get", ""},
			{"tasks/update", answer("Mallory")},
			{"tasks/cancel", ""},
			{"tasks/result", ""}, // of the 2025-11-25 draft: no method here, for anyone
		} {
			unknown := c.call(t, q.method, `"taskId":"`+unknownTaskID()+`"`+q.params)
			theirs := c.call(t, q.method, `"taskId":"`+id+`"`+q.params)
			if !bytes.Contains(unknown, []byte(`"error"`)) || !bytes.Equal(theirs, unknown) {
				t.Errorf("%s: %s of another's task: %s; want what an unknown id gets: %s", who, q.method, theirs, unknown)
			}
		}
		if a := c.call(t, "tasks/list", ""); !bytes.Contains(a, []byte(`"error"`)) || bytes.Contains(a, []byte(id)) {
			t.Errorf("%s: tasks/list: %s; want an error (a method of the 2025-11-25 draft) that names no task", who, a)
		}
		if ack := c.listen(t, `{"taskIds":["`+id+`"]}`); ack["taskIds"] == nil || len(ack["taskIds"].([]any)) != 0 {
			t.Errorf("%s: listening to another's task: %v, want an acknowledgement of no task", who, ack)
		}
	}
	// Ada's task is as it was: asking, neither answered nor cancelled by the others.
	if task := get(ada); task["status"] != "input_required" || task["inputRequests"].(map[string]any)[key] == nil {
		t.Fatalf("Ada's task after the others tried: %v", task)
	}
	adaListens := dial(t, url, "ada")
	if ids, _ := adaListens.listen(t, `{"taskIds":["`+id+`"]}`)["taskIds"].([]any); len(ids) != 1 || ids[0] != id {
		t.Fatalf("Ada listening to her task: %v", ids)
	}
	if a := ada.call(t, "tasks/update", `"taskId":"`+id+`"`+answer("Ada")); !bytes.Contains(a, []byte(`"result"`)) {
		t.Fatalf("Ada's answer: %s", a)
	}
	select {
	case n := <-adaListens.notes:
		if p, _ := n["params"].(map[string]any); n["method"] != "notifications/tasks" || p["taskId"] != id {
			t.Errorf("Ada's subscription: %v", n)
		}
	case <-time.After(10 * time.Second):
		t.Error("Ada's subscription heard nothing of her task within 10s")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if task = get(ada); task["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task did not complete within 10s: %v", task)
		}
	}
	if b, _ := json.Marshal(task["result"]); !strings.Contains(string(b), "the secret report, for Ada") {
		t.Errorf("Ada's result: %s", b)
	}
	// Nobody else reads the result, nor heard of the task's changes.
	for _, who := range others {
		c := heard[who]
		if a := c.call(t, "tasks/get", `"taskId":"`+id+`"`); !bytes.Contains(a, []byte(`"error"`)) || bytes.Contains(a, []byte("secret")) {
			t.Errorf("%s reads Ada's finished task: %s", who, a)
		}
		select {
		case n := <-c.notes:
			t.Errorf("%s's subscription heard %v", who, n)
		default:
		}
	}
}

// unknownTaskID is an id no task has, in the shape of the server's (128 random bits).
func unknownTaskID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// The scopes of a resource guard the subscriptions to it over WebSocket too, in either
// revision, as over HTTP: without them, resources/subscribe and subscriptions/listen are
// refused insufficient_scope.
func TestScopesOfSubscriptions(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ws-test", Version: "1"}, &mcp.ServerOptions{Logger: quiet()})
	srv.AddResource(mcp.Resource{URI: "files://a", Name: "a", Scopes: []string{"files:write"}, Read: func(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{URI: uri, Text: "a"}}, nil
	}})
	url := serveGuarded(t, srv, map[string]*mcp.AuthInfo{
		"ada-read":  {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app", Scopes: []string{"files:read"}},
		"ada-write": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app", Scopes: []string{"files:write"}},
	})
	for token, ok := range map[string]bool{"ada-read": false, "ada-write": true} {
		// Revision 2025-11-25: a session, then resources/subscribe.
		c := dial(t, url, token)
		for _, m := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"files://a"}}`,
		} {
			if err := c.c.Write(t.Context(), websocket.MessageText, []byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		var subscribed []byte
		for range 2 {
			select {
			case subscribed = <-c.answers:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: no answer within 10s", token)
			}
		}
		if refused := bytes.Contains(subscribed, []byte("insufficient_scope")); refused == ok || bytes.Contains(subscribed, []byte(`"result"`)) != ok {
			t.Errorf("%s: resources/subscribe: %s", token, subscribed)
		}
		// Revision 2026-07-28: subscriptions/listen.
		c = dial(t, url, token)
		req := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["files://a"]},` + taskMeta + `}}`
		if err := c.c.Write(t.Context(), websocket.MessageText, []byte(req)); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-c.notes:
			uris, _ := n["params"].(map[string]any)["notifications"].(map[string]any)["resourceSubscriptions"].([]any)
			if !ok || len(uris) != 1 || uris[0] != "files://a" {
				t.Errorf("%s: listening to files://a: %v", token, n)
			}
		case a := <-c.answers:
			if ok || !bytes.Contains(a, []byte("insufficient_scope")) {
				t.Errorf("%s: listening to files://a: %s", token, a)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: listen: no answer within 10s", token)
		}
	}
}
