// Package httptoken holds the HTTP syntax that both the generator and the runtime check:
// the names of the headers a tool's arguments are mirrored into (x-mcp-header).
package httptoken

import "strings"

// IsToken reports whether s is an HTTP field name: one or more tchar of RFC 9110.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
