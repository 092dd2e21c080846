// Command everything-client is an MCP client that uses everything a server offers, written
// on mcpgen's client. It is the program the official conformance suite runs for its client
// leg:
//
//	conformance client --command "everything-client" --requirements 2026-07-28
//
// The suite appends the URL of a test server to the command and says in the environment
// which scenario runs (MCP_CONFORMANCE_SCENARIO), at which revision
// (MCP_CONFORMANCE_PROTOCOL_VERSION), with what else the scenario wants
// (MCP_CONFORMANCE_CONTEXT, JSON). The client does not need to know the scenario: it does
// what a client does with any server, and the scenario's server checks how. It connects at
// the revision asked for, lists the tools and calls each one (with the arguments the
// context gives, else with values its input schema asks for), lists the resources and reads
// each one, lists the prompts and gets each one, and answers what the server asks:
// elicitation (accepting, so that a form's defaults are filled in), sampling and roots.
//
// It exits 0 when it connected, whatever the server's tools answered; a call that fails is
// logged to stderr. It exits 1 when it could not connect, and 2 on bad usage.
package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: everything-client <server URL>   (MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_PROTOCOL_VERSION in the environment)")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, url, log); err != nil {
		log.Error("everything-client", "scenario", os.Getenv("MCP_CONFORMANCE_SCENARIO"), "error", err)
		os.Exit(1)
	}
}

// conformanceContext is what MCP_CONFORMANCE_CONTEXT may hold.
type conformanceContext struct {
	ToolCalls []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"toolCalls"`
	// A pre-registered client, for the authorization scenarios that have one, and what the
	// machine-to-machine ones authenticate with.
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"` // the authorization server the client is registered with
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	ValidJWT         string `json:"valid_jwt"`
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
}

// The client's redirect URI, and the URL of its Client ID Metadata Document (which the
// suite's authorization server accepts without fetching it).
const (
	redirectURL       = "http://localhost:3000/callback"
	clientMetadataURL = "https://conformance-test.local/client-metadata.json"
)

func run(ctx context.Context, url string, log *slog.Logger) error {
	var cc conformanceContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &cc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	auth, err := authConfig(ctx, url, os.Getenv("MCP_CONFORMANCE_SCENARIO"), cc)
	if err != nil {
		return err
	}
	c, err := mcp.Connect(ctx, &mcp.StreamableHTTPTransport{URL: url, HTTPClient: &http.Client{Transport: auth}}, &mcp.ClientOptions{
		Info:            mcp.Implementation{Name: "mcpgen-everything-client", Version: "1.0.0"},
		ProtocolVersion: os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"),
		Logger:          log,
		Elicitation: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			// Accept with nothing filled in: the form's defaults are what the client sends.
			return &mcp.ElicitResult{Action: mcp.Accept, Content: map[string]any{}}, nil
		},
		Sampling: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.Text{Text: "A sampled answer."}, Model: "everything-client", StopReason: "endTurn"}, nil
		},
		Roots: []mcp.Root{{URI: "file:///tmp/everything-client", Name: "workspace"}},
	})
	if err != nil {
		return err
	}
	defer c.Close()
	info := c.Server()
	log.Info("connected", "server", info.Name, "protocolVersion", info.ProtocolVersion, "stateless", info.Stateless)

	tools, err := c.ListTools(ctx)
	if err != nil {
		log.Warn("tools/list", "error", err)
	}
	given := map[string]map[string]any{}
	for _, call := range cc.ToolCalls {
		given[call.Name] = call.Arguments
	}
	schemas := map[string]json.RawMessage{}
	for _, t := range tools {
		schemas[t.Name] = json.RawMessage(t.InputSchema)
	}
	for _, t := range tools {
		args, ok := given[t.Name]
		if !ok {
			args = argumentsFor(t.Name, json.RawMessage(t.InputSchema), schemas)
		}
		res, err := c.CallTool(ctx, t.Name, args)
		switch {
		case err != nil:
			log.Warn("tools/call", "tool", t.Name, "error", err)
		case res.IsError:
			log.Info("tools/call: an error result", "tool", t.Name, "error", res.Err())
		default:
			log.Info("tools/call", "tool", t.Name, "blocks", len(res.Content))
		}
	}
	// Tools the context names that the list did not (the list may have left them out).
	for _, call := range cc.ToolCalls {
		if _, listed := schemas[call.Name]; !listed {
			if _, err := c.CallTool(ctx, call.Name, call.Arguments); err != nil {
				log.Warn("tools/call", "tool", call.Name, "error", err)
			}
		}
	}

	if info.Capabilities.Resources {
		resources, err := c.ListResources(ctx)
		if err != nil {
			log.Warn("resources/list", "error", err)
		}
		for _, r := range resources {
			if _, err := c.ReadResource(ctx, r.URI); err != nil {
				log.Warn("resources/read", "uri", r.URI, "error", err)
			}
		}
	}
	if info.Capabilities.Prompts {
		prompts, err := c.ListPrompts(ctx)
		if err != nil {
			log.Warn("prompts/list", "error", err)
		}
		for _, p := range prompts {
			args := map[string]string{}
			for _, a := range p.Arguments {
				if a.Required {
					args[a.Name] = "test"
				}
			}
			if _, err := c.GetPrompt(ctx, p.Name, args); err != nil {
				log.Warn("prompts/get", "prompt", p.Name, "error", err)
			}
		}
	}
	return nil
}

// argumentsFor makes arguments for a tool from its input schema: each required property
// (and each with a default) gets its default, or a value of its type. A tool that echoes a
// schema (json_schema_echo) gets the input schema of the tool the scenario shows, as it was
// listed: a client must not change a schema it passes on.
func argumentsFor(tool string, schema json.RawMessage, schemas map[string]json.RawMessage) map[string]any {
	if tool == "json_schema_echo" {
		if s, ok := schemas["json_schema_2020_12_tool"]; ok {
			return map[string]any{"schema": s}
		}
	}
	var s struct {
		Properties map[string]struct {
			Type    any             `json:"type"`
			Default json.RawMessage `json:"default"`
			Enum    []any           `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name]
		switch {
		case p.Default != nil:
			var v any
			json.Unmarshal(p.Default, &v)
			args[name] = v
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		default:
			args[name] = valueOf(p.Type)
		}
	}
	return args
}

func valueOf(typ any) any {
	t, _ := typ.(string)
	if list, ok := typ.([]any); ok && len(list) > 0 {
		t, _ = list[0].(string)
	}
	switch t {
	case "number":
		return 2
	case "integer":
		return 3
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "test"
}

// authConfig is how the client authorizes with protected servers: the authorization code
// flow, with a user who approves at once (the suite's authorization server redirects
// straight back), with a pre-registered client where the context gives one; a client acting
// on its own behalf in the client credentials scenarios; a workload's JWT traded for a token
// in the workload identity one. A pre-registered client is bound to its authorization
// server's issuer and to the scenario's server, and used with no other.
func authConfig(ctx context.Context, serverURL, scenario string, cc conformanceContext) (*oauth.Transport, error) {
	cfg := &oauth.Config{
		ClientMetadataURL: clientMetadataURL,
		ClientName:        "mcpgen-everything-client",
		RedirectURL:       redirectURL,
		Authorize:         oauth.FollowRedirect(nil),
	}
	if cc.ClientID == "" {
		return &oauth.Transport{Config: cfg}, nil
	}
	issuer, err := scenarioIssuer(ctx, serverURL, cc)
	if err != nil {
		return nil, err
	}
	// For the scenario's server only: a configured client gets tokens for its servers.
	client := oauth.Client{Issuer: issuer, ID: cc.ClientID, Secret: cc.ClientSecret, Resources: []string{serverURL}}
	switch scenario {
	case "auth/client-credentials-basic":
		cfg.Grant = oauth.GrantClientCredentials
	case "auth/client-credentials-jwt":
		block, _ := pem.Decode([]byte(cc.PrivateKeyPEM))
		if block == nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: private_key_pem holds no PEM block")
		}
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: private_key_pem: %w", err)
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: private_key_pem: not a signing key")
		}
		cfg.Grant, client.PrivateKey, client.SigningAlgorithm = oauth.GrantClientCredentials, signer, cc.SigningAlgorithm
	case "auth/wif-jwt-bearer":
		jwt := cc.ValidJWT
		cfg.Grant = oauth.GrantJWTBearer
		client.Assertion = func(context.Context, string, string) (string, error) { return jwt, nil }
	case "auth/enterprise-managed-authorization":
		cfg.Grant = oauth.GrantJWTBearer
		client.Assertion = oauth.IDJAG(nil, cc.IDPTokenEndpoint, cc.IDPClientID, "", cc.IDPIDToken)
	}
	cfg.Clients = []oauth.Client{client}
	return &oauth.Transport{Config: cfg}, nil
}

// scenarioIssuer is the authorization server the scenario's client is registered with:
// the context's issuer where the suite gives it (pre-registration). The machine-to-machine
// scenarios give none, so the test client asks the scenario's server which authorization
// server it uses (the challenge's resource metadata). That is sound here only because the
// suite, which configured the client, also runs that server; a real client is configured
// with the issuer, and never learns where its secret goes from the server it is for.
func scenarioIssuer(ctx context.Context, serverURL string, cc conformanceContext) (string, error) {
	if cc.Issuer != "" {
		return cc.Issuer, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"ping"}`))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("asking the scenario's server for its authorization server: %w", err)
	}
	resp.Body.Close()
	ch, _ := oauth.ParseChallenge(resp.Header)
	if ch.ResourceMetadata == "" {
		return "", fmt.Errorf("the scenario's server (HTTP %d) names no resource metadata, and the context no issuer", resp.StatusCode)
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodGet, ch.ResourceMetadata, nil)
	if err != nil {
		return "", err
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var prm oauth.ResourceMetadata
	if err := json.NewDecoder(resp.Body).Decode(&prm); err != nil || len(prm.AuthorizationServers) == 0 {
		return "", fmt.Errorf("the scenario's resource metadata at %s names no authorization server (%v)", ch.ResourceMetadata, err)
	}
	return prm.AuthorizationServers[0], nil
}
