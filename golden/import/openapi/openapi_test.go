package openapi

// Not generated: the typed client of an OpenAPI-shaped server (Stripe- and GitHub-like tools,
// written for this test) on payloads such APIs send and take. Each payload is first checked
// against the tool's schema in the snapshot, then decoded into the generated types (unions
// of JSON types, tagged and untagged unions of objects, types shared by several tools) and
// encoded back to the same JSON. The client then calls a server in the same process that
// checks the arguments against the tools' input schemas.

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const user = `{"login":"octocat","id":1,"avatar_url":"https://github.com/images/error/octocat_happy.gif",
"html_url":"https://github.com/octocat","type":"User","site_admin":false}`

const customerWithCard = `{"id":"cus_NffrFeUfNV2Hib","object":"customer","email":"jennyrosen@example.com","name":"Jenny Rosen",
"address":{"line1":"510 Townsend St","line2":null,"city":"San Francisco","country":"US","postal_code":"94103"},
"balance":0,"created":1680893993,"default_source":{"id":"card_1MtJUT2eZvKYlo2CNaw2HvEv","object":"card","brand":"Visa",
"exp_month":8,"exp_year":2027,"last4":"4242"},"metadata":{"order_id":"6735"},"tax_exempt":"none","livemode":false}`

const customerWithSourceID = `{"id":"cus_Ng2GmXr7U5uV1l","object":"customer","email":null,"name":null,"address":null,
"created":1680893994,"default_source":"ba_1MtJUT2eZvKYlo2C","metadata":{},"tax_exempt":null,"livemode":true}`

const customerWithBank = `{"id":"cus_3","object":"customer","created":1680893995,"default_source":{"id":"ba_1","object":"bank_account",
"bank_name":"STRIPE TEST BANK","last4":"6789","status":"new"},"livemode":false}`

const paymentIntents = `{"object":"list","url":"/v1/payment_intents","has_more":true,"data":[
{"id":"pi_3MtwBwLkdIwHu7ix28a3tqPa","object":"payment_intent","amount":2000,"currency":"usd","status":"requires_action",
 "customer":"cus_NffrFeUfNV2Hib","last_payment_error":null,"next_action":{"type":"redirect_to_url","redirect_to_url":
 {"return_url":"https://example.com/return","url":"https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1"}},
 "metadata":{},"created":1680800504},
{"id":"pi_2","object":"payment_intent","amount":1099,"currency":"eur","status":"requires_payment_method",
 "customer":` + customerWithSourceID + `,"last_payment_error":{"code":"card_declined","message":"Your card was declined.","type":"card_error"},
 "next_action":null,"created":1680800600},
{"id":"pi_3","object":"payment_intent","amount":500,"currency":"usd","status":"requires_action","customer":null,
 "next_action":{"type":"use_stripe_sdk","use_stripe_sdk":{"type":"three_d_secure_redirect","stripe_js":"https://hooks.stripe.com/redirect"}},
 "created":1680800700},
{"id":"pi_4","object":"payment_intent","amount":1099,"currency":"eur","status":"requires_action",
 "next_action":{"type":"display_bank_transfer_instructions","display_bank_transfer_instructions":
 {"amount_remaining":1099,"currency":"eur","reference":"6TK9PBCVVQVR"}},"created":1680800800}]}`

const openIssue = `{"id":1,"number":1347,"title":"Found a bug","state":"open","state_reason":null,"body":"I'm having a problem with this.",
"user":` + user + `,"labels":["triage",{"id":208045946,"name":"bug","description":"Something isn't working","color":"f29513","default":true}],
"assignee":null,"assignees":[` + user + `],"closed_at":null,"closed_by":null,
"reactions":{"url":"https://api.github.com/repos/octocat/Hello-World/issues/1347/reactions","total_count":5,"+1":3,"-1":1,"laugh":0,"heart":1}}`

const closedIssue = `{"id":2,"number":1348,"title":"Typo","state":"closed","state_reason":"completed","body":null,"user":null,
"labels":[],"assignee":` + user + `,"closed_at":"2026-03-01T10:00:00Z","closed_by":` + user + `}`

const codeResults = `{"total_count":2,"incomplete_results":false,"items":[
{"name":"classes.js","path":"src/attributes/classes.js","sha":"d7212f9dee2dcc18f084d7df8f417b80846ded5a","score":1,
 "repository":{"id":167174,"name":"jquery","full_name":"jquery/jquery","private":false,"owner":` + user + `}},
{"name":"main.go","path":"cmd/main.go","sha":"a1b2","score":0.75,"repository":{"id":7,"name":"x","full_name":"o/x","private":true,"owner":null}}]}`

const webhook = `{"type":"Repository","id":12345678,"name":"web","active":true,"events":["push","pull_request"],
"config":{"content_type":"json","insecure_ssl":"0","url":"https://example.com/webhook"},
"updated_at":"2026-04-03T18:18:04Z","created_at":"2026-04-03T18:18:04Z",
"last_response":{"code":null,"status":"unused","message":null},"deliveries_paused_until":null}`

const pausedWebhook = `{"type":"Repository","id":12345679,"name":"web","active":false,"events":["*"],
"config":{"url":"https://example.com/other","insecure_ssl":1},"updated_at":"2026-04-04T09:00:00Z","created_at":"2026-04-03T18:18:04Z",
"last_response":{"code":502,"status":"failed","message":"Bad Gateway"},"deliveries_paused_until":"2026-04-04T10:00:00Z"}`

const webhookChannel = `{"channel":{"type":"webhook","id":"9b2f6c1e-3c55-4d0a-9a4e-2f1b7c8d9e01","name":"Pager bridge","enabled":true,
"created_at":"2026-05-01T12:00:00Z","muted_until":null,"url":"https://hooks.example.com/alerts","headers":{"X-Team":"ops"}},"warnings":null}`

const emailChannel = `{"channel":{"type":"email","id":"0c5e8f4a-7b1d-4e2f-8a3c-5d6e7f8a9b0c","name":"Ops list","enabled":false,
"created_at":"2026-05-02T08:30:00Z","muted_until":"2026-05-03T08:30:00Z","addresses":["ops@example.com","oncall@example.com"],
"digest_minutes":null},"warnings":["enabled is false: the channel sends nothing until it is enabled"]}`

const usageReport = `{"object":"usage_report","organization_id":"9007199254740993","start":"2026-10-01T00:00:00Z",
"end":"2026-11-01T00:00:00Z","currency":"usd","by_model":{
"total":{"requests":1204,"input_tokens":"18446744073709551615","output_tokens":"734002","cost":"812.40"},
"model-large":{"requests":200,"input_tokens":"18446744073709000000","output_tokens":"500000","cost":"700.00"},
"model-small":{"requests":1004,"input_tokens":"551615","output_tokens":"234002","cost":"112.40"}},"next_page":null}`

// A series with gaps: points whose value is null, and a unit per time that is null.
const metrics = `{"status":"ok","query":"avg:system.cpu.user{*}by{host}","from_date":1700000000000,"to_date":1700000180000,
"series":[{"metric":"system.cpu.user","display_name":"system.cpu.user","scope":"host:web-1","interval":60,"length":4,
"pointlist":[[1700000000000,12.5],[1700000060000,null],[1700000120000,13.25],[1700000180000,null]],
"unit":[{"family":"percentage","name":"percent","plural":"percent","scale_factor":1,"short_name":"%"},null]}]}`

// PaymentMethods: the fields all have (id, billing_details, customer...) beside those of their type.
const cardMethod = `{"id":"pm_1MqLiJLkdIwHu7ixUEgbFdYF","object":"payment_method","billing_details":{"email":"jennyrosen@example.com",
"name":"Jenny Rosen","phone":null},"created":1679945299,"customer":"cus_NffrFeUfNV2Hib","livemode":false,"metadata":{},"type":"card",
"card":{"brand":"visa","country":"US","exp_month":8,"exp_year":2026,"funding":"credit","last4":"4242"}}`

const sepaMethod = `{"id":"pm_1Q0PsIJvEtkwdCNYMSaVuRz6","object":"payment_method","billing_details":{"email":"jenny@example.com","name":"Jenny Rosen",
"phone":null},"created":1726673582,"customer":null,"livemode":false,"metadata":null,"type":"sepa_debit",
"sepa_debit":{"bank_code":"37040044","country":"DE","last4":"3000"}}`

const bankMethod = `{"id":"pm_1","object":"payment_method","billing_details":{"email":null,"name":"Acme Inc.","phone":"+15555550100"},
"created":1726673600,"customer":"cus_2","livemode":true,"type":"us_bank_account","us_bank_account":{"account_holder_type":"company",
"bank_name":"STRIPE TEST BANK","last4":"6789","routing_number":"110000000"}}`

// An incident: array items beside anyOf or oneOf, for an array that may be null, a string or
// an array of strings, and arrays of references or of their ids.
const acknowledged = `{"id":"Q1V9F2KZ8X3L","status":"acknowledged","assignments":[{"at":"2026-11-20T10:00:00Z",
"assignee":{"type":"user_reference","id":"PXPGF42"}},{"at":"2026-11-20T10:05:00Z","assignee":{"type":"user_reference","id":"P4TQ7RS"}}],
"impacted_services":[{"type":"service_reference","id":"PIJ90N7","summary":"Checkout API"}],
"pending_actions":[{"type":"escalate","at":"2026-11-20T10:30:00Z"},{"type":"resolve","at":"2026-11-21T10:00:00Z"}]}`

const resolved = `{"id":"Q2","status":"resolved","assignments":null,"impacted_services":["PIJ90N7","PZ5U9HN"],"pending_actions":null}`

const unassigned = `{"id":"Q3","status":"triggered","assignments":null,"impacted_services":[],"pending_actions":[]}`

// payloads are what the tools take and give, each with the generated type that holds it.
var payloads = []struct {
	tool, side, json string
	into             func() json.Unmarshaler
}{
	{"customers_retrieve", "output", customerWithCard, func() json.Unmarshaler { return new(Customer) }},
	{"customers_retrieve", "output", customerWithSourceID, func() json.Unmarshaler { return new(Customer) }},
	{"customers_update", "output", customerWithBank, func() json.Unmarshaler { return new(Customer) }},
	{"customers_update", "input", `{"customer":"cus_1","address":"","metadata":{"order_id":"6735"},"tax_exempt":"exempt"}`, func() json.Unmarshaler { return new(CustomersUpdateInput) }},
	{"customers_create", "input", `{"email":"a@example.com","address":{"line1":"1 Main St","city":"Porto","country":"PT"},"metadata":""}`, func() json.Unmarshaler { return new(CustomersCreateInput) }},
	{"payment_intents_list", "output", paymentIntents, func() json.Unmarshaler { return new(PaymentIntentsListOutput) }},
	{"payment_intents_list", "input", `{"created":{"gte":1680000000,"lt":1690000000},"limit":3}`, func() json.Unmarshaler { return new(PaymentIntentsListInput) }},
	{"payment_intents_list", "input", `{"created":1680000000}`, func() json.Unmarshaler { return new(PaymentIntentsListInput) }},
	{"payment_intents_create", "input", `{"amount":2000,"currency":"usd","payment_method_data":{"type":"card","card":{"number":"4242424242424242","exp_month":8,"exp_year":2027,"cvc":"314"}},"automatic_payment_methods":{"enabled":true,"allow_redirects":"never"}}`, func() json.Unmarshaler { return new(PaymentIntentsCreateInput) }},
	{"payment_intents_create", "input", `{"amount":1500,"currency":"usd","payment_method_data":{"type":"us_bank_account","us_bank_account":{"account_number":"000123456789","routing_number":"110000000","account_holder_type":"individual"}}}`, func() json.Unmarshaler { return new(PaymentIntentsCreateInput) }},
	{"issues_get", "output", openIssue, func() json.Unmarshaler { return new(Issue) }},
	{"issues_update", "output", closedIssue, func() json.Unmarshaler { return new(Issue) }},
	{"issues_update", "input", `{"owner":"octocat","repo":"Hello-World","issue_number":1347,"title":42,"labels":["bug",{"name":"triage","color":"ededed"}],"locked":"unchanged"}`, func() json.Unmarshaler { return new(IssuesUpdateInput) }},
	{"issues_update", "input", `{"owner":"octocat","repo":"Hello-World","issue_number":1347,"state":"closed","state_reason":"not_planned","locked":true}`, func() json.Unmarshaler { return new(IssuesUpdateInput) }},
	{"issues_create", "input", `{"owner":"octocat","repo":"Hello-World","title":"Found a bug","milestone":"v1.0","labels":["bug"]}`, func() json.Unmarshaler { return new(IssuesCreateInput) }},
	{"search_code", "output", codeResults, func() json.Unmarshaler { return new(SearchCodeOutput) }},
	{"checks_create", "input", `{"owner":"o","repo":"r","name":"code-coverage","head_sha":"ce587453ced02b1526dfb4cb910479d431683101","check":{"status":"completed","conclusion":"success","completed_at":"2026-03-01T10:00:00Z"},"output":{"title":"Coverage","summary":"92%"}}`, func() json.Unmarshaler { return new(ChecksCreateInput) }},
	{"checks_create", "input", `{"owner":"o","repo":"r","name":"lint","head_sha":"ce58","check":{"status":"in_progress"},"output":{"annotations_url":"https://example.com/a"}}`, func() json.Unmarshaler { return new(ChecksCreateInput) }},
	{"repos_create_webhook", "input", `{"owner":"octocat","repo":"Hello-World","name":"web","active":true,"events":["push","pull_request"],"config":{"url":"https://example.com/webhook","content_type":"json","secret":"s3cr3t","insecure_ssl":"0"}}`, func() json.Unmarshaler { return new(ReposCreateWebhookInput) }},
	{"repos_create_webhook", "output", webhook, func() json.Unmarshaler { return new(Webhook) }},
	{"repos_create_webhook", "output", pausedWebhook, func() json.Unmarshaler { return new(Webhook) }},
	{"alert_channels_create", "input", `{"team_id":"t_1","channel":{"type":"slack","name":"On-call","workspace_id":"T0001","channel":"#oncall","mention":null}}`, func() json.Unmarshaler { return new(AlertChannelsCreateInput) }},
	{"alert_channels_create", "input", `{"team_id":"t_1","channel":{"type":"email","name":"Ops list","addresses":["ops@example.com"],"digest_minutes":15,"muted_until":"2026-12-24T18:00:00Z"}}`, func() json.Unmarshaler { return new(AlertChannelsCreateInput) }},
	{"alert_channels_create", "input", `{"team_id":"t_2","channel":{"type":"webhook","name":"Bridge","enabled":false,"url":"https://hooks.example.com/a","signing_secret":"whsec_1","headers":{}}}`, func() json.Unmarshaler { return new(AlertChannelsCreateInput) }},
	{"alert_channels_create", "output", webhookChannel, func() json.Unmarshaler { return new(AlertChannelsCreateOutput) }},
	{"alert_channels_create", "output", emailChannel, func() json.Unmarshaler { return new(AlertChannelsCreateOutput) }},
	{"usage_report_get", "input", `{"start":"2026-10-01T00:00:00Z","end":null,"project_ids":["proj_1","proj_2"]}`, func() json.Unmarshaler { return new(UsageReportGetInput) }},
	{"usage_report_get", "input", `{"start":"2026-10-01T00:00:00Z","project_ids":null}`, func() json.Unmarshaler { return new(UsageReportGetInput) }},
	{"usage_report_get", "output", usageReport, func() json.Unmarshaler { return new(UsageReportGetOutput) }},
	{"metrics_query", "output", metrics, func() json.Unmarshaler { return new(MetricsQueryOutput) }},
	{"incidents_update", "input", `{"id":"Q1V9F2KZ8X3L","status":"acknowledged","assignees":[{"type":"user_reference","id":"PXPGF42"}],"notify":"oncall@example.com"}`, func() json.Unmarshaler { return new(IncidentsUpdateInput) }},
	{"incidents_update", "input", `{"id":"Q1V9F2KZ8X3L","assignees":null,"notify":["ops@example.com","lead@example.com"]}`, func() json.Unmarshaler { return new(IncidentsUpdateInput) }},
	{"incidents_update", "output", acknowledged, func() json.Unmarshaler { return new(IncidentsUpdateOutput) }},
	{"incidents_update", "output", resolved, func() json.Unmarshaler { return new(IncidentsUpdateOutput) }},
	{"incidents_update", "output", unassigned, func() json.Unmarshaler { return new(IncidentsUpdateOutput) }},
	{"payment_methods_retrieve", "output", cardMethod, func() json.Unmarshaler { return new(paymentMethod) }},
	{"payment_methods_retrieve", "output", sepaMethod, func() json.Unmarshaler { return new(paymentMethod) }},
	{"payment_methods_retrieve", "output", bankMethod, func() json.Unmarshaler { return new(paymentMethod) }},
}

// paymentMethod holds a PaymentMethod, an interface, for the payloads' table.
type paymentMethod struct{ PaymentMethod }

func (p *paymentMethod) UnmarshalJSON(data []byte) (err error) {
	p.PaymentMethod, err = UnmarshalPaymentMethod(data)
	return err
}

func (p paymentMethod) MarshalJSON() ([]byte, error) { return json.Marshal(p.PaymentMethod) }

// Each payload is valid for its schema, decodes into the typed client's types and encodes back
// to the same JSON: a member that is null comes back null, one left out stays out.
func TestPayloadsRoundTrip(t *testing.T) {
	for _, p := range payloads {
		if err := schemaOf(t, p.tool, p.side).Validate(unmarshalAny(t, p.json)); err != nil {
			t.Fatalf("%s %s: the payload does not match the schema: %v", p.tool, p.side, err)
		}
		v := p.into()
		if err := v.UnmarshalJSON([]byte(p.json)); err != nil {
			t.Errorf("%s %s: %v", p.tool, p.side, err)
			continue
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Errorf("%s %s: encoding: %v", p.tool, p.side, err)
			continue
		}
		if diff := sameJSON(unmarshalAny(t, p.json), unmarshalAny(t, string(out)), ""); diff != "" {
			t.Errorf("%s %s: encoded back differently: %s\n%s", p.tool, p.side, diff, out)
		}
		if err := schemaOf(t, p.tool, p.side).Validate(unmarshalAny(t, string(out))); err != nil {
			t.Errorf("%s %s: what the client writes does not match the schema: %v\n%s", p.tool, p.side, err, out)
		}
	}
}

// The decoded values are the branches the payloads are, typed.
func TestPayloadsDecodeTyped(t *testing.T) {
	var c Customer
	must(t, c.UnmarshalJSON([]byte(customerWithCard)))
	source, _ := c.DefaultSource.Get()
	address, _ := c.Address.Get()
	line2 := address.Line2
	taxExempt, _ := c.TaxExempt.Get()
	card, ok := source.Object.(CustomerDefaultSourceObjectCard)
	if !ok || card.Last4 != "4242" || source.String != nil || address.City != "San Francisco" || !line2.IsNull() || taxExempt != CustomerTaxExemptNone {
		t.Errorf("customer with a card: %+v, source %#v", c, c.DefaultSource)
	}
	// Null and left out are told apart: this customer's email is null, its balance left out.
	c = Customer{}
	must(t, c.UnmarshalJSON([]byte(customerWithSourceID)))
	source, _ = c.DefaultSource.Get()
	if source.Object != nil || *source.String != "ba_1MtJUT2eZvKYlo2C" || !c.Address.IsNull() || !c.Email.IsNull() || c.Balance != nil {
		t.Errorf("customer with a source id: %+v", c)
	}
	c = Customer{}
	must(t, c.UnmarshalJSON([]byte(customerWithBank)))
	source, _ = c.DefaultSource.Get()
	if bank, ok := source.Object.(CustomerDefaultSourceObjectBankAccount); !ok || bank.BankName != mcp.NotNull("STRIPE TEST BANK") || !c.Email.IsZero() {
		t.Errorf("customer with a bank account: %#v", c.DefaultSource)
	}

	var list PaymentIntentsListOutput
	must(t, list.UnmarshalJSON([]byte(paymentIntents)))
	// A union that may be left out or null is read with Get, then a type switch.
	next, _ := list.Data[0].NextAction.Get()
	customer, _ := list.Data[0].Customer.Get()
	redirect, ok := next.(RedirectToURL)
	if url, _ := redirect.RedirectToURL.URL.Get(); !ok || url == "" || *customer.String != "cus_NffrFeUfNV2Hib" {
		t.Errorf("first intent: %+v", list.Data[0])
	}
	// The customer expanded in a payment intent is the type the customers tools return.
	customer, _ = list.Data[1].Customer.Get()
	lastError, _ := list.Data[1].LastPaymentError.Get()
	var expanded *Customer = customer.Object
	if expanded == nil || expanded.ID != "cus_Ng2GmXr7U5uV1l" || lastError.Type != PaymentIntentLastPaymentErrorTypeCardError || !list.Data[1].NextAction.IsNull() {
		t.Errorf("second intent: %+v", list.Data[1])
	}
	next, _ = list.Data[2].NextAction.Get()
	if sdk, ok := next.(PaymentIntentNextActionUseStripeSDK); !ok || !strings.Contains(string(sdk.UseStripeSDK), "three_d_secure_redirect") || !list.Data[2].Customer.IsNull() {
		t.Errorf("third intent: %+v", list.Data[2])
	}
	next, _ = list.Data[3].NextAction.Get()
	if bt, ok := next.(PaymentIntentNextActionDisplayBankTransferInstructions); !ok || bt.DisplayBankTransferInstructions.Reference != mcp.NotNull("6TK9PBCVVQVR") || !list.Data[3].Customer.IsZero() {
		t.Errorf("fourth intent: %+v", list.Data[3])
	}

	var issue Issue
	must(t, issue.UnmarshalJSON([]byte(openIssue)))
	assignees, _ := issue.Assignees.Get()
	if *issue.Labels[0].String != "triage" || issue.Labels[1].Object.Name != "bug" || issue.Reactions.Plus1 != 3 || issue.Reactions.Minus1 != 1 ||
		issue.User.Login != "octocat" || issue.Assignee != nil || assignees[0] != *issue.User {
		t.Errorf("open issue: %+v", issue)
	}
	must(t, issue.UnmarshalJSON([]byte(closedIssue)))
	closedBy, _ := issue.ClosedBy.Get()
	if issue.StateReason != mcp.NotNull(StateReasonCompleted) || !issue.ClosedAt.Equal(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) || closedBy.Login != "octocat" || issue.User != nil {
		t.Errorf("closed issue: %+v", issue)
	}

	var in IssuesUpdateInput
	must(t, in.UnmarshalJSON([]byte(`{"owner":"o","repo":"r","issue_number":1,"title":42,"locked":true}`)))
	if title, _ := in.Title.Get(); *title.Integer != 42 || title.String != nil || !*in.Locked.Boolean || !in.Milestone.IsZero() {
		t.Errorf("update input: %+v", in)
	}
	// OpenAPI's shapes: nullable (3.0's keyword), read-only properties, allOf, a discriminator,
	// additionalProperties beside properties, 64-bit integers as strings.
	var hook Webhook
	must(t, hook.UnmarshalJSON([]byte(webhook)))
	if *hook.ID != 12345678 || hook.LastResponse.Code != nil || *hook.LastResponse.Status != "unused" || !hook.DeliveriesPausedUntil.IsNull() ||
		*hook.Config.InsecureSsl.String != WebhookConfigInsecureSslStringX0 || *hook.Config.ContentType != WebhookConfigContentTypeJSON {
		t.Errorf("webhook: %+v", hook)
	}
	hook = Webhook{}
	must(t, hook.UnmarshalJSON([]byte(pausedWebhook)))
	if until, ok := hook.DeliveriesPausedUntil.Get(); !ok || until.Hour() != 10 || *hook.LastResponse.Code != 502 || *hook.Config.InsecureSsl.Number != 1 {
		t.Errorf("paused webhook: %+v", hook)
	}
	var created AlertChannelsCreateOutput
	must(t, created.UnmarshalJSON([]byte(webhookChannel)))
	if ch, ok := created.Channel.(WebhookChannel); !ok || ch.Headers["X-Team"] != "ops" || !ch.MutedUntil.IsNull() || *ch.ID == "" || !created.Warnings.IsNull() {
		t.Errorf("webhook channel: %#v", created)
	}
	created = AlertChannelsCreateOutput{}
	must(t, created.UnmarshalJSON([]byte(emailChannel)))
	if ch, ok := created.Channel.(EmailChannel); !ok || len(ch.Addresses) != 2 || !ch.DigestMinutes.IsNull() || ch.MutedUntil.IsZero() || *ch.Enabled {
		t.Errorf("email channel: %#v", created)
	}
	var report UsageReportGetOutput
	must(t, report.UnmarshalJSON([]byte(usageReport)))
	large := report.ByModel.AdditionalProperties["model-large"]
	if report.OrganizationID != "9007199254740993" || report.ByModel.Total.InputTokens != "18446744073709551615" || len(report.ByModel.AdditionalProperties) != 2 ||
		large.Requests != 200 || large.Cost != "700.00" || !report.NextPage.IsNull() {
		t.Errorf("usage report: %+v", report)
	}

	// Array items that may be null: nil where the series has no value.
	var points MetricsQueryOutput
	must(t, points.UnmarshalJSON([]byte(metrics)))
	series := points.Series[0]
	if len(series.Pointlist) != 4 || *series.Pointlist[0][1] != 12.5 || series.Pointlist[1][1] != nil || *series.Pointlist[1][0] != 1700000060000 ||
		len(series.Unit) != 2 || *series.Unit[0].ShortName != "%" || series.Unit[1] != nil {
		t.Errorf("metrics: %+v", series)
	}

	// Properties beside a oneOf: each branch has the shared fields and its own.
	method, err := UnmarshalPaymentMethod([]byte(cardMethod))
	must(t, err)
	if card, ok := method.(PaymentMethodCard); !ok || card.ID != "pm_1MqLiJLkdIwHu7ixUEgbFdYF" || *card.Customer != "cus_NffrFeUfNV2Hib" ||
		*card.BillingDetails.Name != "Jenny Rosen" || card.BillingDetails.Phone != nil || card.Card.Last4 != "4242" || card.Card.Funding != PaymentMethodCardCardFundingCredit {
		t.Errorf("card: %#v", method)
	}
	method, err = UnmarshalPaymentMethod([]byte(sepaMethod))
	must(t, err)
	if sepa, ok := method.(PaymentMethodSepaDebit); !ok || sepa.Customer != nil || !sepa.Metadata.IsNull() || *sepa.SepaDebit.BankCode != "37040044" {
		t.Errorf("sepa_debit: %#v", method)
	}
	method, err = UnmarshalPaymentMethod([]byte(bankMethod))
	must(t, err)
	if bank, ok := method.(PaymentMethodUsBankAccount); !ok || !bank.Livemode || !bank.Metadata.IsZero() || *bank.UsBankAccount.AccountHolderType != AccountHolderTypeCompany {
		t.Errorf("us_bank_account: %#v", method)
	}

	// Items beside anyOf or oneOf: a slice that may be null, a string or a slice of strings,
	// a slice of references or of ids.
	var incident IncidentsUpdateOutput
	must(t, incident.UnmarshalJSON([]byte(acknowledged)))
	pending, _ := incident.PendingActions.Get()
	if len(incident.Assignments) != 2 || incident.Assignments[1].Assignee.ID != "P4TQ7RS" || incident.Assignments[0].At.Minute() != 0 ||
		incident.ImpactedServices[0].Object.ID != "PIJ90N7" || incident.ImpactedServices[0].String != nil ||
		len(pending) != 2 || pending[0].Type != PendingActionTypeEscalate {
		t.Errorf("acknowledged incident: %+v", incident)
	}
	incident = IncidentsUpdateOutput{}
	must(t, incident.UnmarshalJSON([]byte(resolved)))
	if incident.Assignments != nil || *incident.ImpactedServices[1].String != "PZ5U9HN" || incident.ImpactedServices[1].Object != nil || !incident.PendingActions.IsNull() {
		t.Errorf("resolved incident: %+v", incident)
	}
	// An empty array is not null: an empty slice, not nil.
	incident = IncidentsUpdateOutput{}
	must(t, incident.UnmarshalJSON([]byte(unassigned)))
	if pending, ok := incident.PendingActions.Get(); incident.Assignments != nil || incident.ImpactedServices == nil || len(incident.ImpactedServices) != 0 || !ok || pending == nil {
		t.Errorf("unassigned incident: %+v", incident)
	}
	var update IncidentsUpdateInput
	must(t, update.UnmarshalJSON([]byte(`{"id":"Q1","assignees":null,"notify":["ops@example.com"]}`)))
	if !update.Assignees.IsNull() || update.Notify.String != nil || update.Notify.Array[0] != "ops@example.com" || update.Status != nil {
		t.Errorf("incident update: %+v", update)
	}

	var checks ChecksCreateInput
	must(t, checks.UnmarshalJSON([]byte(`{"owner":"o","repo":"r","name":"n","head_sha":"s","check":{"status":"queued"},"output":{"annotations_url":"u"}}`)))
	if q, ok := checks.Check.(ChecksCreateInputCheckQueued); !ok || q.Status != ChecksCreateInputCheckQueuedStatusQueued {
		t.Errorf("check: %#v", checks.Check)
	}
	if _, ok := checks.Output.(ChecksCreateInputOutputAnnotationsURL); !ok {
		t.Errorf("output: %#v", checks.Output)
	}
}

// Values of no branch are refused with the member's path and what it may be.
func TestPayloadsRefused(t *testing.T) {
	for _, c := range []struct {
		into      json.Unmarshaler
		json, msg string
	}{
		{new(Customer), `{"id":"c","object":"customer","created":1,"livemode":false,"default_source":7}`, "/default_source: expected string or object, got number"},
		{new(Customer), `{"id":"c","object":"customer","created":1,"livemode":false,"default_source":{"object":"alipay_account"}}`, `/default_source: "object" must be "card" or "bank_account", got "alipay_account"`},
		{new(Customer), `{"id":"c","object":"account","created":1,"livemode":false}`, `/object: must be "customer"`},
		{new(Issue), `{"id":1,"number":1,"title":"t","state":"open","user":null,"labels":[true],"assignee":null,"closed_at":null}`, "/labels/0: expected string or object, got boolean"},
		{new(PaymentIntentsListOutput), `{"object":"list","url":"u","has_more":false,"data":[{"id":"p","object":"payment_intent","amount":1,"currency":"usd","status":"succeeded","created":1,"next_action":{"type":"wechat_pay_display_qr_code"}}]}`,
			`/data/0/next_action: "type" must be "redirect_to_url", "use_stripe_sdk" or "display_bank_transfer_instructions", got "wechat_pay_display_qr_code"`},
		{new(AlertChannelsCreateOutput), `{"channel":{"type":"sms","id":"c","name":"n","number":"+351"}}`, `/channel: "type" must be "email", "slack" or "webhook", got "sms"`},
		{new(AlertChannelsCreateOutput), `{"channel":{"type":"email","id":"c","name":"n","url":"https://x"}}`, ""},
		{new(UsageReportGetOutput), `{"object":"usage_report","organization_id":"1","start":"2026-10-01T00:00:00Z","end":"2026-10-02T00:00:00Z","currency":"usd","by_model":{"total":{"requests":1,"input_tokens":"1","output_tokens":"1","cost":"0"},"m":7}}`, "/by_model/m: expected object, got number"},
		{new(UsageReportGetInput), `{"start":"2026-10-01T00:00:00Z","end":"tomorrow"}`, "/end: must be a date-time"},
		{new(paymentMethod), `{"id":"pm_2","object":"payment_method","billing_details":{"email":null,"name":null,"phone":null},"created":1,"customer":null,"livemode":false,"type":"ideal","ideal":{"bank":"abn_amro"}}`,
			`"type" must be "card", "sepa_debit" or "us_bank_account", got "ideal"`},
		{new(paymentMethod), `{"id":"pm_3","object":"source","billing_details":{"email":null,"name":null,"phone":null},"created":1,"customer":null,"livemode":false,"type":"card","card":{}}`,
			`/object: must be "payment_method"`},
		{new(IncidentsUpdateOutput), `{"id":"Q","status":"resolved","assignments":null,"impacted_services":["PIJ90N7",7]}`, "/impacted_services/1: expected object or string, got number"},
		{new(IncidentsUpdateOutput), `{"id":"Q","status":"resolved","assignments":{"at":"2026-11-20T10:00:00Z"}}`, "/assignments: expected array"},
		{new(IncidentsUpdateInput), `{"id":"Q","notify":{"email":"a@example.com"}}`, "/notify: expected string or array, got object"},
		{new(ChecksCreateInput), `{"owner":"o","repo":"r","name":"n","head_sha":"s","check":{"status":"completed","conclusion":"success"},"output":{"summary":"s"}}`, `/output: expected an object with "title" and "summary", or with "annotations_url"`},
	} {
		err := c.into.UnmarshalJSON([]byte(c.json))
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%s: %v", c.json, err)
		case c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg)):
			t.Errorf("%s: error %v, want %q", c.json, err, c.msg)
		}
	}
	// A map key that is one of the struct's own properties is the caller's error, not a member
	// written twice.
	byModel := UsageReportGetOutputByModel{AdditionalProperties: map[string]Usage{"total": {}}}
	if _, err := json.Marshal(byModel); err == nil || !strings.Contains(err.Error(), `UsageReportGetOutputByModel.AdditionalProperties has "total", which is a property of its own`) {
		t.Errorf("a map key that is a property: %v", err)
	}
}

func schemaOf(t *testing.T, tool, side string) *jsonschema.Schema {
	t.Helper()
	var snap struct {
		Tools []struct {
			Name                      string
			InputSchema, OutputSchema json.RawMessage
		}
	}
	must(t, json.Unmarshal(Snapshot, &snap))
	for _, tl := range snap.Tools {
		if tl.Name != tool {
			continue
		}
		raw := tl.InputSchema
		if side == "output" {
			raw = tl.OutputSchema
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		must(t, err)
		doc = openAPI(doc, side)
		c := jsonschema.NewCompiler()
		must(t, c.AddResource("mem://"+tool+"/"+side, doc))
		s, err := c.Compile("mem://" + tool + "/" + side)
		must(t, err)
		return s
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

// openAPI reads OpenAPI's words as a server's OpenAPI validator does, for a JSON Schema
// validator that does not know them: "nullable": true is the schema or null (3.0), and a
// required property that is readOnly is required of results only, a writeOnly one of
// arguments only.
func openAPI(v any, side string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = openAPI(x, side)
		}
		if props, ok := v["properties"].(map[string]any); ok {
			if req, ok := v["required"].([]any); ok {
				v["required"] = slices.DeleteFunc(req, func(name any) bool {
					p, _ := props[name.(string)].(map[string]any)
					return side == "input" && p["readOnly"] == true || side == "output" && p["writeOnly"] == true
				})
			}
		}
		if v["nullable"] == true {
			delete(v, "nullable")
			return map[string]any{"anyOf": []any{v, map[string]any{"type": "null"}}}
		}
	case []any:
		for i, x := range v {
			v[i] = openAPI(x, side)
		}
	}
	return v
}

func unmarshalAny(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	must(t, err)
	return v
}

// sameJSON says how b differs from a ("" when it does not).
func sameJSON(a, b any, path string) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for k, av := range am {
			bv, ok := bm[k]
			if !ok {
				return path + "/" + k + ": missing"
			}
			if d := sameJSON(av, bv, path+"/"+k); d != "" {
				return d
			}
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				return path + "/" + k + ": added"
			}
		}
		return ""
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			if d := sameJSON(al[i], bl[i], path+"/"+string(rune('0'+i))); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return path + ": " + stringOf(a) + " became " + stringOf(b)
	}
	return ""
}

func stringOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Decoding a page of payment intents (tagged unions, JSON-type unions, an expanded customer)
// with the generated code, against encoding/json into the map a client without types would use.
func BenchmarkDecodePaymentIntents(b *testing.B) {
	data := []byte(paymentIntents)
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v PaymentIntentsListOutput
			if err := v.UnmarshalJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json-map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
