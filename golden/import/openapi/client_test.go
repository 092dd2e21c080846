package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The client against a server in the same process that lists the snapshot's tools: arguments
// built from the typed unions are valid for the input schemas, and results decode.
func TestClientCallsOpenAPITools(t *testing.T) {
	results := map[string]string{"customers_update": customerWithBank, "payment_intents_list": paymentIntents, "issues_update": closedIssue,
		"repos_create_webhook": webhook, "alert_channels_create": webhookChannel, "usage_report_get": usageReport, "incidents_update": resolved}
	var snap struct {
		Tools []struct {
			Name                      string
			InputSchema, OutputSchema json.RawMessage
		}
	}
	must(t, json.Unmarshal(Snapshot, &snap))
	s := mcp.NewServer(mcp.Implementation{Name: "openapi-mcp", Version: "1.4.0"}, nil)
	got := map[string]string{}
	for _, tl := range snap.Tools {
		name, in := tl.Name, schemaOf(t, tl.Name, "input")
		s.AddTool(mcp.Tool{Name: name, InputSchema: string(tl.InputSchema), OutputSchema: string(tl.OutputSchema), Handler: func(ctx context.Context, c *mcp.ToolCall) {
			var args json.RawMessage
			c.Arguments().Unmarshal((*rawArgs)(&args))
			got[name] = string(args)
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
			if err == nil {
				err = in.Validate(v)
			}
			if err != nil {
				c.ReturnError(err)
				return
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.Text{Text: "ok"}}}
			if r, ok := results[name]; ok {
				res.StructuredContent = []byte(r)
			}
			c.ReturnResult(res)
		}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mc, err := mcp.Connect(ctx, &mcp.MemoryTransport{Server: s}, nil)
	must(t, err)
	defer mc.Close()
	c := New(mc)

	customer, err := c.CustomersUpdate(ctx, CustomersUpdateInput{Customer: "cus_3", Address: &Address{String: mcp.Ptr("")},
		Metadata: &Metadata{Object: map[string]string{"plan": "pro"}}})
	if err != nil || customer.ID != "cus_3" {
		t.Fatalf("CustomersUpdate: %+v, %v", customer, err)
	}
	if got["customers_update"] != `{"customer":"cus_3","address":"","metadata":{"plan":"pro"}}` {
		t.Errorf("customers_update got %s", got["customers_update"])
	}
	list, err := c.PaymentIntentsList(ctx, PaymentIntentsListInput{Created: &PaymentIntentsListInputCreated{Object: &RangeQuerySpecs{Gte: mcp.Ptr[int64](1680000000)}}})
	if err != nil || len(list.Data) != 4 || got["payment_intents_list"] != `{"created":{"gte":1680000000}}` {
		t.Fatalf("PaymentIntentsList: %+v, %v (sent %s)", list, err, got["payment_intents_list"])
	}
	issue, err := c.IssuesUpdate(ctx, IssuesUpdateInput{Owner: "octocat", Repo: "Hello-World", IssueNumber: 1348,
		Labels: []Label{{String: mcp.Ptr("bug")}, {Object: &LabelObject{Name: mcp.Ptr("docs")}}}, Locked: BooleanOrString{Boolean: mcp.Ptr(false)}})
	if err != nil || issue.Number != 1348 {
		t.Fatalf("IssuesUpdate: %+v, %v", issue, err)
	}
	if got["issues_update"] != `{"owner":"octocat","repo":"Hello-World","issue_number":1348,"labels":["bug",{"name":"docs"}],"locked":false}` {
		t.Errorf("issues_update got %s", got["issues_update"])
	}
	// An optional property that may be null is sent as null, as a value or not at all: null
	// removes the issue's milestone, where leaving it out keeps it.
	if _, err := c.IssuesUpdate(ctx, IssuesUpdateInput{Owner: "o", Repo: "r", IssueNumber: 1, Locked: BooleanOrString{String: mcp.Ptr("unchanged")},
		Milestone: mcp.Null[StringOrInteger](), Body: mcp.NotNull("")}); err != nil {
		t.Fatal(err)
	}
	if got["issues_update"] != `{"owner":"o","repo":"r","issue_number":1,"body":"","milestone":null,"locked":"unchanged"}` {
		t.Errorf("issues_update got %s", got["issues_update"])
	}
	if _, err := c.ChecksCreate(ctx, ChecksCreateInput{Owner: "o", Repo: "r", Name: "lint", HeadSha: "ce58",
		Check:  ChecksCreateInputCheckCompleted{Conclusion: ChecksCreateInputCheckCompletedConclusionSuccess},
		Output: &ChecksCreateInputOutputTitle{Title: "Lint", Summary: "clean"}}); err != nil {
		t.Fatal(err)
	}
	if got["checks_create"] != `{"owner":"o","repo":"r","name":"lint","head_sha":"ce58","check":{"status":"completed","conclusion":"success"},"output":{"title":"Lint","summary":"clean"}}` {
		t.Errorf("checks_create got %s", got["checks_create"])
	}
	// A discriminated union: the branch's struct, whose "type" the encoder writes; a null that
	// says "mention nobody"; a read-only id left out.
	channel, err := c.AlertChannelsCreate(ctx, AlertChannelsCreateInput{TeamID: "t_1",
		Channel: SlackChannel{Name: "On-call", WorkspaceID: "T0001", Channel: "#oncall", Mention: mcp.Null[SlackChannelMention]()}})
	if err != nil {
		t.Fatal(err)
	}
	if got["alert_channels_create"] != `{"team_id":"t_1","channel":{"type":"slack","name":"On-call","workspace_id":"T0001","channel":"#oncall","mention":null}}` {
		t.Errorf("alert_channels_create got %s", got["alert_channels_create"])
	}
	if ch, ok := channel.Channel.(WebhookChannel); !ok || ch.URL != "https://hooks.example.com/alerts" {
		t.Errorf("AlertChannelsCreate: %#v", channel)
	}
	// A write-only secret goes out; the result has none.
	hook, err := c.ReposCreateWebhook(ctx, ReposCreateWebhookInput{Owner: "octocat", Repo: "Hello-World",
		Config: WebhookConfig{URL: "https://example.com/webhook", Secret: mcp.Ptr("s3cr3t"), InsecureSsl: &WebhookConfigInsecureSsl{Number: mcp.Ptr(0.0)}}})
	if err != nil || hook.Config.Secret != nil || *hook.ID != 12345678 {
		t.Fatalf("ReposCreateWebhook: %+v, %v", hook, err)
	}
	if got["repos_create_webhook"] != `{"owner":"octocat","repo":"Hello-World","config":{"url":"https://example.com/webhook","secret":"s3cr3t","insecure_ssl":0}}` {
		t.Errorf("repos_create_webhook got %s", got["repos_create_webhook"])
	}
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	report, err := c.UsageReportGet(ctx, UsageReportGetInput{Start: start, End: mcp.Null[time.Time]()})
	if err != nil || report.ByModel.AdditionalProperties["model-small"].OutputTokens != "234002" {
		t.Fatalf("UsageReportGet: %+v, %v", report, err)
	}
	if got["usage_report_get"] != `{"start":"2026-10-01T00:00:00Z","end":null}` {
		t.Errorf("usage_report_get got %s", got["usage_report_get"])
	}

	// A slice that may be null: null unassigns everyone, a list replaces the assignees; a
	// result's null is a nil slice.
	incident, err := c.IncidentsUpdate(ctx, IncidentsUpdateInput{ID: "Q2", Assignees: mcp.Null[[]UserReference](),
		Notify: &IncidentsUpdateInputNotify{Array: []string{"ops@example.com", "lead@example.com"}}})
	if err != nil || incident.Assignments != nil || len(incident.ImpactedServices) != 2 {
		t.Fatalf("IncidentsUpdate: %+v, %v", incident, err)
	}
	if got["incidents_update"] != `{"id":"Q2","assignees":null,"notify":["ops@example.com","lead@example.com"]}` {
		t.Errorf("incidents_update got %s", got["incidents_update"])
	}
	if _, err := c.IncidentsUpdate(ctx, IncidentsUpdateInput{ID: "Q2", Assignees: mcp.NotNull([]UserReference{{ID: "PXPGF42"}}),
		Notify: &IncidentsUpdateInputNotify{String: mcp.Ptr("oncall@example.com")}}); err != nil {
		t.Fatal(err)
	}
	if got["incidents_update"] != `{"id":"Q2","assignees":[{"type":"user_reference","id":"PXPGF42"}],"notify":"oncall@example.com"}` {
		t.Errorf("incidents_update got %s", got["incidents_update"])
	}

	// A required union left unset is the caller's error, before anything is sent.
	if _, err := c.IssuesUpdate(ctx, IssuesUpdateInput{Owner: "o", Repo: "r", IssueNumber: 1}); err == nil || !strings.Contains(err.Error(), "BooleanOrString: 0 of its fields are set") {
		t.Errorf("IssuesUpdate without locked: %v", err)
	}
}

type rawArgs json.RawMessage

func (r *rawArgs) UnmarshalJSON(b []byte) error { *r = append((*r)[:0], b...); return nil }
