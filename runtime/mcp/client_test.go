package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// clientTestServer has a little of everything a client uses: tools (one that elicits, one
// with structured output, one that logs and reports progress), a resource, a template and a
// prompt with a completion.
func clientTestServer(t *testing.T) *Server {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	addForm(srv, themeFormSchema, decodeThemeForm)
	srv.AddTool(elicitTool())
	srv.AddTool(Tool{Name: "point", Description: "A point.", InputSchema: `{"type":"object"}`,
		OutputSchema: `{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			c.ReturnResult(&CallToolResult{Content: []Content{Text{Text: `{"x":1}`}}, StructuredContent: []byte(`{"x":1}`)})
		}})
	srv.AddTool(Tool{Name: "badpoint", Description: "A point that breaks its schema.", InputSchema: `{"type":"object"}`,
		OutputSchema: `{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			c.ReturnResult(&CallToolResult{Content: []Content{Text{Text: `{"x":"no"}`}}, StructuredContent: []byte(`{"x":"no"}`)})
		}})
	srv.AddTool(Tool{Name: "work", Description: "Logs and reports progress.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			Log(ctx, LevelInfo, "worker", "started")
			Progress(ctx, 1, 2, "half")
			Progress(ctx, 2, 2, "done")
			c.ReturnText("worked")
		}})
	srv.AddTool(Tool{Name: "fail", Description: "Fails.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) { c.ReturnError(errors.New("it broke")) }})
	srv.AddTool(Tool{Name: "roots", Description: "Lists the client's roots.", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *ToolCall) {
			roots, err := Roots(ctx)
			if err != nil {
				c.ReturnError(err)
				return
			}
			var uris []string
			for _, r := range roots {
				uris = append(uris, r.URI)
			}
			c.ReturnText(strings.Join(uris, ","))
		}})
	srv.AddResource(Resource{URI: "test://r", Name: "r", MIMEType: "text/plain", Read: func(ctx context.Context, uri string) ([]ResourceContents, error) {
		return textContents(uri, "contents of r"), nil
	}})
	srv.AddResourceTemplate(ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", Read: func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error) {
		return blobContents(uri, []byte(vars["id"])), nil
	}})
	srv.AddPrompt(Prompt{Name: "greet", Arguments: []PromptArgument{{Name: "who", Required: true}}, Get: func(ctx context.Context, args *Input) (*GetPromptResult, error) {
		var who string
		d := args.decoder()
		for key := range d.Members {
			if string(key) == "who" {
				who, _ = d.String()
			} else {
				d.Skip()
			}
		}
		if err := args.Err(); err != nil {
			return nil, err
		}
		return &GetPromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: Text{Text: "Hello, " + who}}}}, nil
	}})
	srv.AddCompletion(Completion{Prompt: "greet", Argument: "who", Complete: func(ctx context.Context, req CompletionRequest) ([]string, error) {
		return []string{req.Value + "ice", req.Value + "ex"}, nil
	}})
	return srv
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The client uses everything the server offers, in both eras: a session of each revision,
// and the stateless revision it speaks by default with a server that offers it; in memory,
// over Streamable HTTP, and over HTTP+SSE.
func TestClientInBothEras(t *testing.T) {
	transports := map[string]func(t *testing.T, srv *Server) Transport{
		"memory": func(t *testing.T, srv *Server) Transport { return &MemoryTransport{Server: srv} },
		"http": func(t *testing.T, srv *Server) Transport {
			return &StreamableHTTPTransport{URL: serveForClient(t, srv) + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}}
		},
		"sse": func(t *testing.T, srv *Server) Transport {
			return &SSETransport{URL: serveForClient(t, srv) + "/sse", HTTPClient: &http.Client{Transport: &http.Transport{}}}
		},
		"sse fallback": func(t *testing.T, srv *Server) Transport {
			return &StreamableHTTPTransport{URL: serveForClient(t, srv) + "/sse", HTTPClient: &http.Client{Transport: &http.Transport{}}}
		},
	}
	for tname, transport := range transports {
		for _, version := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
			name := version
			if name == "" {
				name = "negotiated"
			}
			if strings.HasPrefix(tname, "sse") && version == "" {
				continue // HTTP+SSE has no stateless revision: the negotiated one is 2025-11-25
			}
			t.Run(tname+"/"+name, func(t *testing.T) { exerciseClient(t, transport, version) })
		}
	}
}

// serveForClient serves srv on a test HTTP server, at /mcp and /sse, until the test ends.
func serveForClient(t *testing.T, srv *Server) string {
	h := srv.HTTPHandler(nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", h)
	mux.Handle("/sse/message", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return ts.URL
}

func exerciseClient(t *testing.T, transport func(t *testing.T, srv *Server) Transport, version string) {
	{
		{
			before := runtimeGoroutines()
			srv := clientTestServer(t)
			var mu sync.Mutex
			var logs []string
			var elicited []string
			opts := &ClientOptions{
				ProtocolVersion: version,
				Logger:          quietLogger(),
				Elicitation: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
					mu.Lock()
					elicited = append(elicited, req.Message)
					mu.Unlock()
					return &ElicitResult{Action: Accept, Content: map[string]any{"theme": "dark"}}, nil
				},
				Roots: []Root{{URI: "file:///a"}, {URI: "file:///b"}},
				Log: func(m LogMessage) {
					mu.Lock()
					logs = append(logs, string(m.Level)+" "+string(m.Data))
					mu.Unlock()
				},
			}
			ctx := context.Background()
			c, err := Connect(ctx, transport(t, srv), opts)
			if err != nil {
				t.Fatal(err)
			}
			info := c.Server()
			wantVersion, stateless := version, version == ""
			if stateless {
				wantVersion = StatelessProtocolVersion
			}
			if info.ProtocolVersion != wantVersion || info.Stateless != stateless || info.Name != "test" || !info.Capabilities.Tools || !info.Capabilities.Prompts {
				t.Fatalf("server info %+v", info)
			}

			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
			}
			if want := []string{"ask", "badpoint", "echo", "fail", "point", "roots", "work"}; !slices.Equal(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}

			res, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"})
			if err != nil || res.IsError || res.Content[0].(Text).Text != "hi" {
				t.Errorf("echo: %+v %v", res, err)
			}
			res, err = c.CallTool(ctx, "echo", map[string]any{"text": 1})
			if err != nil || !res.IsError || !strings.Contains(res.Err().Error(), "/text") {
				t.Errorf("echo with a bad argument: %+v %v", res, err)
			}
			if res, err := c.CallTool(ctx, "fail", nil); err != nil || res.Err() == nil || !strings.Contains(res.Err().Error(), "it broke") {
				t.Errorf("fail: %+v %v", res, err)
			}
			var rpcErr *jsonrpc.Error
			if _, err := c.CallTool(ctx, "nope", nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("an unknown tool: %v", err)
			}

			// A tool that asks the user: a request to the client in a session, an input
			// request and a retry in the stateless revision; the body is the same.
			if res, err := c.CallTool(ctx, "ask", nil); err != nil || res.Content[0].(Text).Text != "accept dark" {
				t.Errorf("ask: %+v %v", res, err)
			}
			if res, err := c.CallTool(ctx, "roots", nil); err != nil || res.Content[0].(Text).Text != "file:///a,file:///b" {
				t.Errorf("roots: %+v %v", res, err)
			}

			// Structured output, checked against the output schema (2025-06-18 and later).
			if version == "" || version >= "2025-06-18" {
				if res, err := c.CallTool(ctx, "point", nil); err != nil || string(res.StructuredContent) != `{"x":1}` {
					t.Errorf("point: %+v %v", res, err)
				}
				if _, err := c.CallTool(ctx, "badpoint", nil); err == nil || !strings.Contains(err.Error(), "output schema") {
					t.Errorf("a result that breaks its output schema: %v", err)
				}
			}

			// Logging and progress.
			if err := c.SetLogLevel(ctx, LevelInfo); err != nil {
				t.Fatal(err)
			}
			var progress []ProgressNotice
			pctx := WithProgress(ctx, func(n ProgressNotice) {
				mu.Lock()
				progress = append(progress, n)
				mu.Unlock()
			})
			if res, err := c.CallTool(pctx, "work", nil); err != nil || res.Content[0].(Text).Text != "worked" {
				t.Errorf("work: %+v %v", res, err)
			}
			mu.Lock()
			if len(progress) != 2 || progress[1].Progress != 2 || progress[1].Total != 2 || progress[1].Message != "done" {
				t.Errorf("progress %+v", progress)
			}
			if len(logs) != 1 || logs[0] != `info "started"` {
				t.Errorf("logs %q", logs)
			}
			mu.Unlock()

			// Resources, templates, prompts, completions, ping.
			if rs, err := c.ListResources(ctx); err != nil || len(rs) != 1 || rs[0].URI != "test://r" || rs[0].MIMEType != "text/plain" {
				t.Errorf("resources %+v %v", rs, err)
			}
			if ts, err := c.ListResourceTemplates(ctx); err != nil || len(ts) != 1 || ts[0].URITemplate != "test://items/{id}" {
				t.Errorf("templates %+v %v", ts, err)
			}
			if cs, err := c.ReadResource(ctx, "test://r"); err != nil || len(cs) != 1 || cs[0].Text != "contents of r" || cs[0].MIMEType != "text/plain" {
				t.Errorf("read %+v %v", cs, err)
			}
			if cs, err := c.ReadResource(ctx, "test://items/42"); err != nil || string(cs[0].Blob) != "42" {
				t.Errorf("read a template's resource %+v %v", cs, err)
			}
			if ps, err := c.ListPrompts(ctx); err != nil || len(ps) != 1 || ps[0].Name != "greet" || !ps[0].Arguments[0].Required {
				t.Errorf("prompts %+v %v", ps, err)
			}
			if p, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "Ann"}); err != nil || p.Messages[0].Content.(Text).Text != "Hello, Ann" {
				t.Errorf("prompt %+v %v", p, err)
			}
			if cr, err := c.Complete(ctx, CompletionRef{Prompt: "greet"}, "who", "Al", nil); err != nil || !slices.Equal(cr.Values, []string{"Alice", "Alex"}) || cr.Total != 2 {
				t.Errorf("complete %+v %v", cr, err)
			}
			if err := c.Ping(ctx); err != nil {
				t.Errorf("ping: %v", err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if _, err := c.ListTools(ctx); !errors.Is(err, ErrClientClosed) {
				t.Errorf("a request after Close: %v", err)
			}
			mu.Lock()
			if len(elicited) == 0 {
				t.Error("the elicitation handler was never called")
			}
			mu.Unlock()
			if _, ok := c.conn.(*memoryClientConn); ok {
				waitForGoroutines(t, before)
			}
		}
	}
}

// A request that takes too long ends with its context, and the server hears of it.
func TestClientCancelsThroughTheContext(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		srv := quietServer(nil)
		var started, ended atomic.Int32
		srv.AddTool(blockingTool(&started, &ended))
		c, err := Connect(context.Background(), &MemoryTransport{Server: srv}, &ClientOptions{ProtocolVersion: version, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err = c.CallTool(ctx, "block", nil)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%q: a call past its deadline: %v", version, err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for ended.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if ended.Load() != 1 {
			t.Errorf("%q: the tool was not cancelled", version)
		}
		c.Close()
	}
}

// ProtocolVersion pins a revision; one the client does not know is an error.
func TestClientUnknownVersion(t *testing.T) {
	_, err := Connect(context.Background(), &MemoryTransport{Server: quietServer(nil)}, &ClientOptions{ProtocolVersion: "1999-01-01"})
	if err == nil || !strings.Contains(err.Error(), "1999-01-01") {
		t.Errorf("unknown version: %v", err)
	}
}

// The defaults of a form are filled into the user's answer (SEP-1034).
func TestWithDefaults(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"Ann"},"age":{"type":"integer","default":30},"ok":{"type":"boolean"}}}`)
	got := withDefaults(map[string]any{"name": "Bo"}, schema)
	b, _ := json.Marshal(got)
	if string(b) != `{"age":30,"name":"Bo"}` {
		t.Errorf("got %s", b)
	}
}

// A stateless server that refuses a request's revision for a while (a rolling upgrade) and
// names one the client speaks gets the request again, once, in that revision; a server
// that keeps refusing gets the error.
func TestClientRetriesInAVersionTheServerNames(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	h := srv.HTTPHandler(nil)
	t.Cleanup(h.Close)
	var refuse atomic.Int32 // how many more tools/call requests to refuse
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "tools/call" {
			calls.Add(1)
			if refuse.Add(-1) >= 0 {
				var req struct {
					ID json.RawMessage `json:"id"`
				}
				json.NewDecoder(r.Body).Decode(&req)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["` + StatelessProtocolVersion + `"],"requested":"x"}}}`))
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := Connect(context.Background(), &StreamableHTTPTransport{URL: ts.URL}, &ClientOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Server().Stateless {
		t.Fatal("not stateless")
	}

	refuse.Store(1)
	res, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "hi"})
	if err != nil || res.IsError || calls.Load() != 2 {
		t.Errorf("refused once: %v, %+v, %d requests (want 2)", err, res, calls.Load())
	}

	calls.Store(0)
	refuse.Store(5)
	_, err = c.CallTool(context.Background(), "echo", map[string]any{"text": "hi"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeUnsupportedProtocolVersion || calls.Load() != 2 {
		t.Errorf("refused always: %v, %d requests (want the error after 2)", err, calls.Load())
	}
}

// Done closes when the connection is gone for good, with the reason; Close closes it too.
func TestClientDone(t *testing.T) {
	srv := quietServer(nil)
	srv.AddTool(echoTool("echo"))
	ctx, cancel := context.WithCancel(context.Background())
	conn := srv.ServeMemory(ctx)
	c, err := Connect(context.Background(), &MemoryTransport{Server: srv}, &ClientOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
		t.Fatal("Done before anything happened")
	default:
	}
	if c.Err() != nil {
		t.Fatalf("Err = %v", c.Err())
	}
	c.Close()
	select {
	case <-c.Done():
	case <-time.After(time.Second):
		t.Fatal("Done not closed by Close")
	}
	if !errors.Is(c.Err(), ErrClientClosed) {
		t.Fatalf("Err after Close = %v", c.Err())
	}
	cancel()
	<-conn.Done()
}

// The HTTP+SSE client posts to the endpoint the stream names only on its URL's origin: a
// server that names another would receive every message there, with the client's headers
// (a token). An endpoint on the same origin, however written, is taken.
func TestSSEClientRefusesAnotherOrigin(t *testing.T) {
	var posted atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posted.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer elsewhere.Close()
	var endpoint string
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusAccepted) // the answer would come on the stream
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: "+endpoint+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer stream.Close()
	port := stream.URL[strings.LastIndex(stream.URL, ":"):]
	for _, e := range []string{elsewhere.URL + "/message", "http://localhost" + port + "/message", "https" + strings.TrimPrefix(stream.URL, "http") + "/message", "//localhost" + port + "/message"} {
		endpoint = e
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := Connect(ctx, &SSETransport{URL: stream.URL, Header: http.Header{"Authorization": {"Bearer secret"}},
			HTTPClient: &http.Client{Transport: &http.Transport{}}}, &ClientOptions{Logger: quietLogger()})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "another origin") {
			t.Errorf("endpoint %s: %v", e, err)
		}
	}
	if n := posted.Load(); n != 0 {
		t.Errorf("the other origin received %d messages", n)
	}
	// The same origin, however written: taken (the client then posts there, and the fake
	// server never answers on the stream, so Connect ends with its context).
	for _, e := range []string{stream.URL + "/message", "/message", "message?x=1"} {
		endpoint = e
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_, err := Connect(ctx, &SSETransport{URL: stream.URL, HTTPClient: &http.Client{Transport: &http.Transport{}}}, &ClientOptions{Logger: quietLogger()})
		cancel()
		if err == nil || strings.Contains(err.Error(), "another origin") {
			t.Errorf("endpoint %s on the same origin: %v", e, err)
		}
	}
}

// A transport's own headers (an API key from .mcp.json or -H) go to its URL's origin only:
// net/http sends every header but Authorization, Cookie and WWW-Authenticate on to where a
// redirect points, so a redirect to another origin fails the request (Streamable HTTP's
// POST and the HTTP+SSE transport's GET alike). A redirect on the same origin is followed,
// with the headers.
func TestHeadersGoToTheServersOriginOnly(t *testing.T) {
	var mu sync.Mutex
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer other.Close()
	srv := clientTestServer(t)
	h := srv.HTTPHandler(nil)
	defer h.Close()
	var keys []string
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/collect", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
		default:
			mu.Lock()
			keys = append(keys, r.Header.Get("X-Api-Key"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		}
	}))
	defer home.Close()
	header := http.Header{"X-Api-Key": {"sk-secret"}}
	for name, tr := range map[string]Transport{
		"Streamable HTTP": &StreamableHTTPTransport{URL: home.URL + "/away", Header: header, HTTPClient: &http.Client{Transport: &http.Transport{}}, NoSSEFallback: true},
		"HTTP+SSE":        &SSETransport{URL: home.URL + "/away", Header: header, HTTPClient: &http.Client{Transport: &http.Transport{}}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := Connect(ctx, tr, &ClientOptions{Logger: quietLogger()})
		cancel()
		if err == nil {
			c.Close()
			t.Errorf("%s: connected through a redirect to another origin", name)
		} else if !strings.Contains(err.Error(), "another origin") {
			t.Errorf("%s: %v, want the redirect refused", name, err)
		}
	}
	mu.Lock()
	if len(got) > 0 {
		t.Errorf("the other origin got %q", got)
	}
	mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Connect(ctx, &StreamableHTTPTransport{URL: home.URL + "/moved", Header: header, HTTPClient: &http.Client{Transport: &http.Transport{}}}, &ClientOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatalf("a redirect on the server's origin: %v", err)
	}
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(keys) == 0 || slices.Contains(keys, "") {
		t.Errorf("the server got the keys %q", keys)
	}
}
