package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The client speaks only revisions it knows: a version a server names that the client does
// not know is passed over wherever the server names it (server/discover's list, an
// UnsupportedProtocolVersionError, initialize's answer), and what each request carries
// follows the revision settled.

// versionServer answers each method with what answer says (a result or an error object's
// JSON, and the HTTP status), and records each request's method and headers.
type versionServer struct {
	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	method, version, session, mcpMethod string
}

func (s *versionServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.seen...)
}

func (s *versionServer) serve(t *testing.T, answer func(method string) (member string, status int)) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		s.mu.Lock()
		s.seen = append(s.seen, seenRequest{req.Method, r.Header.Get("Mcp-Protocol-Version"), r.Header.Get("Mcp-Session-Id"), r.Header.Get("Mcp-Method")})
		s.mu.Unlock()
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		member, status := answer(req.Method)
		if req.Method == methodInitialize && status == http.StatusOK {
			w.Header().Set("Mcp-Session-Id", "s1")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,` + member + `}`))
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

const unknownVersion = "2099-01-01"

// A server/discover that lists a version the client does not know beside one with
// sessions it knows: the client begins a session in the known one, and its requests carry
// that version and the session.
func TestClientPassesOverAnUnknownVersionInDiscover(t *testing.T) {
	var s versionServer
	url := s.serve(t, func(method string) (string, int) {
		switch method {
		case methodDiscover:
			return `"result":{"supportedVersions":["` + unknownVersion + `","2025-06-18"],"capabilities":{"tools":{}},"serverInfo":{"name":"v","version":"1"}}`, http.StatusOK
		case methodInitialize:
			return `"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"v","version":"1"}}`, http.StatusOK
		}
		return `"result":{"tools":[]}`, http.StatusOK
	})
	c, err := Connect(context.Background(), &StreamableHTTPTransport{URL: url}, &ClientOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if info := c.Server(); info.ProtocolVersion != "2025-06-18" || info.Stateless || !strings.Contains(info.Negotiation, "offered no stateless revision") {
		t.Errorf("settled %q (stateless %v), %q", info.ProtocolVersion, info.Stateless, info.Negotiation)
	}
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []seenRequest{
		{methodDiscover, StatelessProtocolVersion, "", methodDiscover},
		{methodInitialize, "", "", ""}, // initialize names its version in its params
		{notificationInitialized, "2025-06-18", "s1", ""},
		{methodToolsList, "2025-06-18", "s1", ""},
	}
	if got := s.requests(); !slices.Equal(got, want) {
		t.Errorf("requests:\n got %v\nwant %v", got, want)
	}
}

// A server that answers initialize with a version the client does not know is refused.
func TestClientRefusesAnUnknownVersionInInitialize(t *testing.T) {
	var s versionServer
	url := s.serve(t, func(method string) (string, int) {
		return `"result":{"protocolVersion":"` + unknownVersion + `","capabilities":{},"serverInfo":{"name":"v","version":"1"}}`, http.StatusOK
	})
	_, err := Connect(context.Background(), &StreamableHTTPTransport{URL: url}, &ClientOptions{Logger: quietLogger(), ProtocolVersion: "2025-11-25"})
	if err == nil || !strings.Contains(err.Error(), unknownVersion) || !strings.Contains(err.Error(), "does not speak") {
		t.Errorf("Connect: %v", err)
	}
}

// A stateless server that refuses a request's revision and names only versions the client
// does not know gets no retry: the caller has the server's error.
func TestClientDoesNotRetryInAnUnknownVersion(t *testing.T) {
	var s versionServer
	url := s.serve(t, func(method string) (string, int) {
		if method == methodDiscover {
			return `"result":{"resultType":"complete","supportedVersions":["` + StatelessProtocolVersion + `"],"capabilities":{"tools":{}},"serverInfo":{"name":"v","version":"1"}}`, http.StatusOK
		}
		return `"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["` + unknownVersion + `"],"requested":"` + StatelessProtocolVersion + `"}}`, http.StatusBadRequest
	})
	c, err := Connect(context.Background(), &StreamableHTTPTransport{URL: url}, &ClientOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Server().Stateless {
		t.Fatal("not stateless")
	}
	_, err = c.Request(context.Background(), methodToolsList, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeUnsupportedProtocolVersion {
		t.Errorf("tools/list: %v", err)
	}
	want := []seenRequest{
		{methodDiscover, StatelessProtocolVersion, "", methodDiscover},
		{methodToolsList, StatelessProtocolVersion, "", methodToolsList},
	}
	if got := s.requests(); !slices.Equal(got, want) {
		t.Errorf("requests:\n got %v\nwant %v", got, want)
	}
	if v := c.Server().ProtocolVersion; v != StatelessProtocolVersion {
		t.Errorf("the client now speaks %q", v)
	}
}
