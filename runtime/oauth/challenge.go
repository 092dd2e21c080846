package oauth

import (
	"net/http"
	"strings"
)

// Challenge is a Bearer challenge of a WWW-Authenticate header (RFC 6750 section 3): what a
// protected MCP server says when it refuses a request.
type Challenge struct {
	Scheme           string // Bearer, or DPoP (RFC 9449)
	ResourceMetadata string // resource_metadata (RFC 9728 section 5.1)
	Scope            string // scope: space-separated
	Error            string // error: invalid_token, insufficient_scope, ...
	ErrorDescription string
}

// ParseChallenge returns the Bearer (or DPoP) challenge of a response's WWW-Authenticate
// headers, if there is one.
func ParseChallenge(h http.Header) (Challenge, bool) {
	for _, v := range h.Values("WWW-Authenticate") {
		for _, ch := range splitChallenges(v) {
			scheme, params, _ := strings.Cut(strings.TrimSpace(ch), " ")
			if !strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "DPoP") {
				continue
			}
			c := Challenge{Scheme: scheme}
			for k, v := range authParams(params) {
				switch strings.ToLower(k) {
				case "resource_metadata":
					c.ResourceMetadata = v
				case "scope":
					c.Scope = v
				case "error":
					c.Error = v
				case "error_description":
					c.ErrorDescription = v
				}
			}
			return c, true
		}
	}
	return Challenge{}, false
}

// splitChallenges splits a header value holding several challenges (`Basic realm="x",
// Bearer scope="y"`) at the commas that start a new scheme.
func splitChallenges(v string) []string {
	var out []string
	start, inQuote := 0, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && inQuote:
			i++
		case c == '"':
			inQuote = !inQuote
		case c == ',' && !inQuote:
			// A new challenge starts when the next token is followed by a space, not '='.
			rest := strings.TrimLeft(v[i+1:], " ")
			end := strings.IndexAny(rest, " =,")
			if end > 0 && rest[end] == ' ' {
				out = append(out, v[start:i])
				start = i + 1
			}
		}
	}
	return append(out, v[start:])
}

// authParams reads the auth-params of a challenge: key=value or key="quoted value", comma
// separated.
func authParams(s string) map[string]string {
	params := map[string]string{}
	for {
		s = strings.TrimLeft(s, " ,")
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return params
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " ")
		var val string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
			val, s = b.String(), s[min(i+1, len(s)):]
		} else {
			end := strings.IndexByte(s, ',')
			if end < 0 {
				end = len(s)
			}
			val, s = strings.TrimSpace(s[:end]), s[end:]
		}
		params[key] = val
	}
}
