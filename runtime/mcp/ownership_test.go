package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every handle belongs to the caller who made it (issuer + subject + client id), and
// answers anyone else as if it did not exist. These tests are the security review's
// (issue 23, items 1 and 9): each failed before the binding.

// serveProtected serves srv protected by a verifier that knows the tokens, at /mcp and
// /sse, until the test ends; it returns the server's base URL.
func serveProtected(t *testing.T, srv *Server, tokens map[string]*AuthInfo) string {
	t.Helper()
	h := srv.HTTPHandler(&HTTPOptions{Auth: &AuthOptions{
		Verifier: TokenVerifierFunc(func(ctx context.Context, token string) (*AuthInfo, error) {
			if a := tokens[token]; a != nil {
				return a, nil
			}
			return nil, errors.New("unknown token")
		}),
		AuthorizationServers: []string{"https://auth.example.com"},
	}})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", h)
	mux.Handle("/sse/message", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { h.Shutdown(context.Background()); ts.Close() })
	return ts.URL
}

// listenReply is the answer to a subscriptions/listen: an SSE stream whose first message is
// the acknowledgement, or an error.
type listenReply struct {
	status int
	ack    map[string]any // the acknowledgement's params
	body   map[string]any // the error, when the answer is not a stream
	events chan map[string]any
}

// authListen opens a subscriptions/listen of revision 2026-07-28 with the token; the stream
// is read until the test ends.
func authListen(t *testing.T, url, token, notifications string) listenReply {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":` + notifications + `,` + taskMeta + `}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	r := listenReply{status: resp.StatusCode, events: make(chan map[string]any, 16)}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		defer cancel()
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		json.Unmarshal(data, &r.body)
		return r
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					r.events <- m
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
		<-done
	})
	select {
	case m := <-r.events:
		if m["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("listen: got %v first, want the acknowledgement", m)
		}
		r.ack, _ = m["params"].(map[string]any)
	case <-time.After(10 * time.Second):
		t.Fatal("listen: no acknowledgement within 10s")
	}
	return r
}

// ackedTasks are the task ids a subscription was agreed.
func ackedTasks(ack map[string]any) []any {
	ids, _ := ack["notifications"].(map[string]any)["taskIds"].([]any)
	return ids
}

// A second user can neither read (its questions, its result), answer, cancel nor listen to
// another's task: to them it is an unknown id, answered byte for byte as one. Nor can the
// same user through another client, or a namesake of another issuer.
func TestTasksBelongToTheirCaller(t *testing.T) {
	srv := quietServer(nil)
	addForm(srv, themeFormSchema, decodeThemeForm)
	srv.AddTool(Tool{Name: "report", InputSchema: `{"type":"object"}`, Scopes: []string{"files:read"}, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) {
		f, _, err := Elicit[themeForm](ctx, "For whom?")
		if err != nil {
			c.ReturnError(err)
			return
		}
		c.ReturnText("the secret report, for " + f.Name)
	}})
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	url := serveProtected(t, srv, map[string]*AuthInfo{
		"ada":              {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app", Scopes: []string{"files:read"}},
		"bob":              {Issuer: "https://auth.example.com", Subject: "bob", ClientID: "app"},
		"ada-other-client": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "other", Scopes: []string{"files:read"}},
		"ada-other-issuer": {Issuer: "https://evil.example.com", Subject: "ada", ClientID: "app", Scopes: []string{"files:read"}},
	}) + "/mcp"
	request := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + params + `,` + taskMeta + `}}`
	}
	r := authPost(t, url, "ada", "", request("tools/call", `"name":"report"`))
	id, _ := result(t, r.body)["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %d %v", r.status, r.body)
	}
	get := func(token string) authReply {
		return authPost(t, url, token, "", request("tasks/get", `"taskId":"`+id+`"`))
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if r = get("ada"); result(t, r.body)["status"] == "input_required" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task did not ask within 5s: %v", r.body)
		}
	}
	var key string
	for k := range result(t, r.body)["inputRequests"].(map[string]any) {
		key = k
	}
	answer := `"inputResponses":{"` + key + `":{"action":"accept","content":{"theme":"dark","name":"Mallory"}}}`

	others := []string{"bob", "ada-other-client", "ada-other-issuer"}
	for _, who := range others {
		for _, q := range []struct{ method, params string }{
			{"tasks/get", ""},
			{"tasks/update", "," + answer},
			{"tasks/cancel", ""},
		} {
			unknown := authPost(t, url, who, "", request(q.method, `"taskId":"`+newTaskID()+`"`+q.params))
			theirs := authPost(t, url, who, "", request(q.method, `"taskId":"`+id+`"`+q.params))
			if unknown.status != 400 || unknown.body["error"] == nil || theirs.status != unknown.status || !reflect.DeepEqual(theirs.body, unknown.body) {
				t.Errorf("%s: %s of another's task: %d %v; want what an unknown id gets: %d %v", who, q.method, theirs.status, theirs.body, unknown.status, unknown.body)
			}
		}
		if l := authListen(t, url, who, `{"taskIds":["`+id+`"]}`); l.ack == nil || len(ackedTasks(l.ack)) != 0 {
			t.Errorf("%s: listening to another's task: %d %v %v, want an acknowledgement of no task", who, l.status, l.ack, l.body)
		}
	}
	// Ada's task is as it was: asking, neither answered nor cancelled by the others.
	if task := result(t, get("ada").body); task["status"] != "input_required" || task["inputRequests"].(map[string]any)[key] == nil {
		t.Fatalf("Ada's task after the others tried: %v", task)
	}
	heard := authListen(t, url, "ada", `{"taskIds":["`+id+`"]}`)
	if ids := ackedTasks(heard.ack); len(ids) != 1 || ids[0] != id {
		t.Fatalf("Ada listening to her task: %v", heard.ack)
	}
	if r := authPost(t, url, "ada", "", request("tasks/update", `"taskId":"`+id+`",`+strings.Replace(answer, "Mallory", "Ada", 1))); r.status != 200 {
		t.Fatalf("Ada's answer: %d %v", r.status, r.body)
	}
	select {
	case n := <-heard.events:
		if p := n["params"].(map[string]any); n["method"] != "notifications/tasks" || p["taskId"] != id {
			t.Errorf("Ada's subscription: %v", n)
		}
	case <-time.After(10 * time.Second):
		t.Error("Ada's subscription heard nothing of her task within 10s")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if r = get("ada"); result(t, r.body)["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task did not complete within 5s: %v", r.body)
		}
	}
	if text := toolText(t, map[string]any{"result": result(t, r.body)["result"]}); text != "the secret report, for Ada" {
		t.Errorf("Ada's result: %q", text)
	}
	// The result, which the tool's scope guarded at creation, is not read through tasks/get.
	for _, who := range others {
		if r := get(who); r.status != 400 || strings.Contains(r.raw(), "secret") {
			t.Errorf("%s reads Ada's finished task: %d %v", who, r.status, r.body)
		}
	}
}

func (r authReply) raw() string { b, _ := json.Marshal(r.body); return string(b) }

// The changes of a task reach only the subscriptions of its caller, also those that come
// from other replicas through the store's watch (which calls notifyTask).
func TestTaskNotificationsOnlyToItsCaller(t *testing.T) {
	srv := quietServer(nil)
	ada, bob := &collector{}, &collector{}
	notes := func(c *collector) *notifier { return newNotifier(context.Background(), c, srv.logger, true) }
	srv.register(&listener{id: []byte(`1`), caller: `"i""ada"""`, w: ada, notes: notes(ada), tasks: map[string]bool{"t": true}, taskOrder: []string{"t"}})
	srv.register(&listener{id: []byte(`2`), caller: `"i""bob"""`, w: bob, notes: notes(bob), tasks: map[string]bool{"t": true}, taskOrder: []string{"t"}})
	srv.notifyTask(&TaskRecord{ID: "t", Caller: `"i""ada"""`, Status: TaskWorking, UpdatedAt: time.Now()})
	if len(ada.all()) != 1 || len(bob.all()) != 0 {
		t.Errorf("Ada's subscription got %d notifications, Bob's %d; want 1 and 0", len(ada.all()), len(bob.all()))
	}
}

// Two service tokens without a sub, of two clients, share nothing: neither sessions (either
// transport), nor request states, nor tasks.
func TestHandlesBoundToIssuerSubjectAndClient(t *testing.T) {
	srv := quietServer(nil)
	addForm(srv, themeFormSchema, decodeThemeForm)
	srv.AddTool(elicitTool())
	srv.AddTool(Tool{Name: "job", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText("done") }})
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	base := serveProtected(t, srv, map[string]*AuthInfo{
		"svc-a": {Issuer: "https://auth.example.com", ClientID: "a"},
		"svc-b": {Issuer: "https://auth.example.com", ClientID: "b"},
	})
	url := base + "/mcp"

	r := authPost(t, url, "svc-a", "", initBody)
	if r.status != 200 || r.session == "" {
		t.Fatalf("initialize: %d %v", r.status, r.body)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if r := authPost(t, url, "svc-b", r.session, ping); r.status != 404 {
		t.Errorf("svc-b in svc-a's session: %d %v", r.status, r.body)
	}
	if r := authPost(t, url, "svc-a", r.session, ping); r.status != 200 {
		t.Errorf("svc-a in its session: %d %v", r.status, r.body)
	}

	// HTTP+SSE: svc-b cannot post to the session svc-a's stream opened.
	c, err := Connect(context.Background(), &SSETransport{URL: base + "/sse", Header: http.Header{"Authorization": {"Bearer svc-a"}},
		HTTPClient: &http.Client{Transport: &http.Transport{}}}, &ClientOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	l := c.conn.(legacyClientConn)
	req, _ := http.NewRequest(http.MethodPost, l.endpoint, strings.NewReader(ping))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer svc-b")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("svc-b posting to svc-a's HTTP+SSE session: %d", resp.StatusCode)
	}

	ask := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ask",` + taskMeta
	r = authPost(t, url, "svc-a", "", ask+`}}`)
	key, state := "", result(t, r.body)["requestState"].(string)
	for k := range result(t, r.body)["inputRequests"].(map[string]any) {
		key = k
	}
	retry := ask + `,"inputResponses":{"` + key + `":{"action":"accept","content":{"theme":"dark"}}},"requestState":"` + state + `"}}`
	if r := authPost(t, url, "svc-b", "", retry); r.status != 400 || !strings.Contains(r.raw(), "not a state this server issued") {
		t.Errorf("svc-a's request state retried by svc-b: %d %v", r.status, r.body)
	}
	if r := authPost(t, url, "svc-a", "", retry); r.status != 200 || result(t, r.body)["resultType"] != "complete" {
		t.Errorf("svc-a's request state retried by svc-a: %d %v", r.status, r.body)
	}

	r = authPost(t, url, "svc-a", "", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"job",`+taskMeta+`}}`)
	id := result(t, r.body)["taskId"].(string)
	get := `{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{"taskId":"` + id + `",` + taskMeta + `}}`
	if r := authPost(t, url, "svc-b", "", get); r.status != 400 {
		t.Errorf("svc-b reads svc-a's task: %d %v", r.status, r.body)
	}
	if r := authPost(t, url, "svc-a", "", get); r.status != 200 {
		t.Errorf("svc-a reads its task: %d %v", r.status, r.body)
	}
}

// A token that names no issuer, subject or client gets no handle on a protected server:
// neither a session, a request state, a task nor a subscription, each refused with an error
// that says why. What makes no handle still works.
func TestAnonymousTokensGetNoHandles(t *testing.T) {
	srv := quietServer(nil)
	addForm(srv, themeFormSchema, decodeThemeForm)
	srv.AddTool(elicitTool())
	srv.AddTool(Tool{Name: "job", InputSchema: `{"type":"object"}`, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText("done") }})
	srv.AddTool(Tool{Name: "plain", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *ToolCall) { c.ReturnText("plain") }})
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	base := serveProtected(t, srv, map[string]*AuthInfo{"anon": {Scopes: []string{"read"}}})
	url := base + "/mcp"
	const why = "names no issuer, subject or client"

	if r := authPost(t, url, "anon", "", initBody); r.status != 403 || r.session != "" || !strings.Contains(r.raw(), why) {
		t.Errorf("initialize: %d %q %v", r.status, r.session, r.body)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer anon")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	if resp.StatusCode != 200 { // a stream would not end
		body, _ = io.ReadAll(resp.Body)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(body), why) {
		t.Errorf("HTTP+SSE stream: %d %s", resp.StatusCode, body)
	}
	for _, call := range []string{"job", "ask"} {
		r := authPost(t, url, "anon", "", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+call+`",`+taskMeta+`}}`)
		if !strings.Contains(r.raw(), why) || r.body["result"] != nil {
			t.Errorf("tools/call %s: %d %v", call, r.status, r.body)
		}
	}
	if l := authListen(t, url, "anon", `{"toolsListChanged":true}`); l.ack != nil || !strings.Contains(authReply{body: l.body}.raw(), why) {
		t.Errorf("subscriptions/listen: %d %v %v", l.status, l.ack, l.body)
	}
	if r := authPost(t, url, "anon", "", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"plain",`+taskMeta+`}}`); toolText(t, r.body) != "plain" {
		t.Errorf("a plain call: %v", r.body)
	}
}

// A task is answered only to a token with its tool's scope, as its tools/call was (issue
// 40, finding 5: a token of the same issuer, subject and client without the scope read and
// answered the task). Without it, tasks/get, tasks/update and tasks/cancel get 403
// insufficient_scope, and the task is untouched.
func TestTaskNeedsItsToolsScope(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(Tool{Name: "report", InputSchema: `{"type":"object"}`, Scopes: []string{"files:read"}, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) {
		<-ctx.Done()
		c.ReturnText("the secret report")
	}})
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	url := serveProtected(t, srv, map[string]*AuthInfo{
		"ada":        {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app", Scopes: []string{"files:read"}},
		"ada-narrow": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app"},
	}) + "/mcp"
	request := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + params + `,` + taskMeta + `}}`
	}
	r := authPost(t, url, "ada", "", request("tools/call", `"name":"report"`))
	id, _ := result(t, r.body)["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %d %v", r.status, r.body)
	}
	for _, q := range []struct{ method, params string }{
		{"tasks/get", ""},
		{"tasks/update", `,"inputResponses":{}`},
		{"tasks/cancel", ""},
	} {
		r := authPost(t, url, "ada-narrow", "", request(q.method, `"taskId":"`+id+`"`+q.params))
		if r.status != http.StatusForbidden || !strings.Contains(r.raw(), "files:read") {
			t.Errorf("%s of a task without its tool's scope: %d %v; want 403 insufficient_scope", q.method, r.status, r.body)
		}
	}
	if task := result(t, authPost(t, url, "ada", "", request("tasks/get", `"taskId":"`+id+`"`)).body); task["status"] != "working" {
		t.Errorf("the task after the refusals: %v", task)
	}
}
