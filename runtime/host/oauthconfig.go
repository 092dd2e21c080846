package host

import "strings"

// OAuthClient is a server's OAuth client registered beforehand: its id at the
// authorization server Issuer. A client is bound to its issuer and to its server (an OAuth
// client uses it with that authorization server only, for tokens for that server only);
// its secret, if it has one, is not in the file.
type OAuthClient struct {
	ClientID string
	Issuer   string
}

// oauth reads a server's "oauth": {"clientId": "...", "issuer": "https://..."}. Its values
// are taken as written, without ${VAR}: they say where a client's id goes, and a variable
// would let the file send the environment there.
func (r *configReader) oauth(server string, v *value) *OAuthClient {
	const shape = `write {"clientId": "...", "issuer": "https://auth.example.com"}`
	if v.kind != kindObject {
		r.problem(v.off, shape, "oauth of server %q is %s, not an object", server, v.kindName())
		return nil
	}
	if s := v.field("clientSecret"); s != nil {
		r.problem(s.keyOff, "give it to mcpgen with --client-secret (or MCPGEN_CLIENT_SECRET), --client-id, --client-issuer and --client-resource (the server's url)",
			"oauth of server %q has a clientSecret: a secret does not belong in a configuration file, which is shared and checked in", server)
	}
	str := func(key string) string {
		m := v.field(key)
		if m == nil {
			return ""
		}
		if m.val.kind != kindString {
			r.problem(m.val.off, shape, "oauth.%s of server %q is %s, not a string", key, server, m.val.kindName())
			return ""
		}
		return m.val.str
	}
	o := &OAuthClient{ClientID: str("clientId"), Issuer: str("issuer")}
	switch {
	case o.ClientID == "":
		r.problem(v.off, `add "clientId": the id of the client registered with the server's authorization server`, "oauth of server %q has no clientId", server)
	case o.Issuer == "":
		r.problem(v.off, `add "issuer": the authorization server the client is registered with, as its metadata names it ("https://auth.example.com"); the client is used with that server only`,
			"oauth of server %q has no issuer", server)
	case !strings.HasPrefix(o.Issuer, "https://") && !strings.HasPrefix(o.Issuer, "http://"):
		r.problem(v.field("issuer").val.off, `the issuer identifier is an https URL ("https://auth.example.com")`, "oauth.issuer %q of server %q is not an https URL", o.Issuer, server)
	}
	return o
}
