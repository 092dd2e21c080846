package host

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A server's pre-registered OAuth client names its issuer; a secret in the file, a client
// without an issuer, or an issuer with a variable in it is a problem at its place.
func TestOAuthConfig(t *testing.T) {
	cfg, err := ParseConfig(".mcp.json", []byte(`{"mcpServers": {"files": {"url": "https://files.example.com/mcp", "oauth": {"clientId": "mcpgen-cli", "issuer": "https://auth.example.com", "callbackPort": 8080}}}}`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Servers[0].OAuth; o == nil || *o != (OAuthClient{ClientID: "mcpgen-cli", Issuer: "https://auth.example.com"}) {
		t.Errorf("oauth %+v", o)
	}

	data := `{"mcpServers": {
  "a": {"url": "https://a.example/mcp", "oauth": {"clientId": "x", "issuer": "https://as.example", "clientSecret": "${SECRET}"}},
  "b": {"url": "https://b.example/mcp", "oauth": {"clientId": "x"}},
  "c": {"url": "https://c.example/mcp", "oauth": {"issuer": "https://as.example"}},
  "d": {"url": "https://d.example/mcp", "oauth": {"clientId": "x", "issuer": "${EVIL}"}},
  "e": {"url": "https://e.example/mcp", "oauth": "x"}
}}`
	_, err = ParseConfig(".mcp.json", []byte(data), env(map[string]string{"SECRET": "s3cret", "EVIL": "https://evil.example"}))
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a ConfigError", err)
	}
	want := []string{
		`.mcp.json:2:100: oauth of server "a" has a clientSecret: a secret does not belong in a configuration file, which is shared and checked in`,
		`.mcp.json:3:50: oauth of server "b" has no issuer`,
		`.mcp.json:4:50: oauth of server "c" has no clientId`,
		`.mcp.json:5:78: oauth.issuer "${EVIL}" of server "d" is not an https URL`,
		`.mcp.json:6:50: oauth of server "e" is a string, not an object`,
	}
	var got []string
	for _, p := range ce.Problems {
		got = append(got, fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Message))
		if p.Hint == "" {
			t.Errorf("no hint for %q", p.Message)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
