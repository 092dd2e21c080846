package spectest

import (
	"strings"
	"testing"
)

// The referee is what makes the end-to-end tests fail on a message that breaks the schema,
// so it must refuse such messages, not only accept good ones.
func TestReferee(t *testing.T) {
	r := NewReferee()
	const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}`
	for _, tc := range []struct {
		name, version, method, msg string
		bad                        string // a part of the error, or "" for a valid message
	}{
		{"stateful initialize", "2025-11-25", "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`, ""},
		{"stateful initialize without serverInfo", "2025-11-25", "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`, "InitializeResult"},
		{"stateful ping", "2024-11-05", "ping", `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{"stateful request from the server", "2025-11-25", "", `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, ""},
		{"stateful error", "2025-11-25", "tools/call", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`, ""},
		{"URL elicitation required without data", "2025-11-25", "tools/call",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"go there"}}`, "URLElicitationRequiredError"},

		{"discover", FirstStateless, "server/discover",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private",` + serverInfo + `}}`, ""},
		{"discover without cache hints", FirstStateless, "server/discover",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{}}}`, "DiscoverResult"},
		{"a result without resultType", FirstStateless, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, "resultType"},
		{"a result without resultType, method unknown", FirstStateless, "", `{"jsonrpc":"2.0","id":1,"result":{}}`, "JSONRPCMessage"},
		{"tools/list without ttlMs", FirstStateless, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"cacheScope":"public"}}`, "ListToolsResult"},
		{"input required", FirstStateless, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s"}}`, ""},
		{"input required with a bad input request", FirstStateless, "prompts/get",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":{"messages":[]}}}}}`, "InputRequiredResult"},
		{"input required on tools/list", FirstStateless, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`, "ListToolsResult"},
		{"listen result", FirstStateless, "subscriptions/listen",
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`, ""},
		{"listen result without the subscription", FirstStateless, "subscriptions/listen",
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}`, "SubscriptionsListenResult"},
		{"a result for a removed method", FirstStateless, "ping", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, "removed"},
		{"a request from the server", FirstStateless, "", `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, "no requests"},
		{"acknowledgement", FirstStateless, "",
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"a"},"notifications":{}}}`, ""},
		{"acknowledgement without notifications", FirstStateless, "",
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}`, "ServerNotification"},
		{"missing capability", FirstStateless, "tools/call",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"no","data":{"requiredCapabilities":{"sampling":{}}}}}`, ""},
		{"missing capability without data", FirstStateless, "tools/call",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"no"}}`, "MissingRequiredClientCapabilityError"},
		{"unsupported version without requested", FirstStateless, "server/discover",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no","data":{"supported":["2026-07-28"]}}}`, "UnsupportedProtocolVersionError"},
		{"header mismatch", FirstStateless, "tools/list", `{"jsonrpc":"2.0","id":"x","error":{"code":-32020,"message":"no"}}`, ""},
		{"null id", FirstStateless, "tools/list", `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"no"}}`, "JSONRPCMessage"},
	} {
		err := r.Check(tc.version, []byte(tc.msg), tc.method)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%s: refused a valid message: %v", tc.name, err)
		case tc.bad != "" && err == nil:
			t.Errorf("%s: accepted an invalid message", tc.name)
		case tc.bad != "" && !strings.Contains(err.Error(), tc.bad):
			t.Errorf("%s: error %q does not mention %s", tc.name, err, tc.bad)
		}
	}
}
