// Package uritemplate expands URI templates (RFC 6570) as MCP's resource templates use them:
// every variable a single string.
package uritemplate

import (
	"fmt"
	"slices"
	"strings"
)

// Expand fills the variables of a URI template (RFC 6570, the operators "", +, #,
// ., /, ;, ? and &, with prefix modifiers; a variable is a single string) as a resource
// template's URI is filled: a variable without a value is left out, as the RFC says.
func Expand(template string, vars map[string]string) (string, error) {
	var b strings.Builder
	for {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			b.WriteString(template)
			return b.String(), nil
		}
		end := strings.IndexByte(template[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("URI template %q: a { is not closed", template)
		}
		b.WriteString(template[:open])
		if err := expandExpression(&b, template[open+1:open+end], vars); err != nil {
			return "", fmt.Errorf("URI template %q: %w", template, err)
		}
		template = template[open+end+1:]
	}
}

// Variables lists the variables of a URI template, in order, once each.
func Variables(template string) []string {
	var names []string
	for {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			return names
		}
		end := strings.IndexByte(template[open:], '}')
		if end < 0 {
			return names
		}
		expr := template[open+1 : open+end]
		if expr != "" && strings.ContainsRune("+#./;?&", rune(expr[0])) {
			expr = expr[1:]
		}
		for _, spec := range strings.Split(expr, ",") {
			name, _, _ := strings.Cut(strings.TrimSuffix(spec, "*"), ":")
			if name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		template = template[open+end+1:]
	}
}

func expandExpression(b *strings.Builder, expr string, vars map[string]string) error {
	op := byte(0)
	if expr != "" && strings.IndexByte("+#./;?&", expr[0]) >= 0 {
		op, expr = expr[0], expr[1:]
	}
	first, sep, named, ifEmpty, reserved := "", ",", false, "", false
	switch op {
	case '+':
		reserved = true
	case '#':
		first, reserved = "#", true
	case '.':
		first, sep = ".", "."
	case '/':
		first, sep = "/", "/"
	case ';':
		first, sep, named = ";", ";", true
	case '?':
		first, sep, named, ifEmpty = "?", "&", true, "="
	case '&':
		first, sep, named, ifEmpty = "&", "&", true, "="
	}
	wrote := false
	for _, spec := range strings.Split(expr, ",") {
		name, prefix, hasPrefix := strings.Cut(strings.TrimSuffix(spec, "*"), ":")
		if name == "" {
			return fmt.Errorf("an empty variable name in {%s}", expr)
		}
		n := 0
		if hasPrefix {
			if _, err := fmt.Sscanf(prefix, "%d", &n); err != nil || n <= 0 {
				return fmt.Errorf("a bad prefix %q in {%s}", prefix, expr)
			}
		}
		v, ok := vars[name]
		if !ok {
			continue
		}
		if hasPrefix {
			if r := []rune(v); len(r) > n {
				v = string(r[:n])
			}
		}
		if wrote {
			b.WriteString(sep)
		} else {
			b.WriteString(first)
			wrote = true
		}
		if named {
			b.WriteString(name)
			if v == "" {
				b.WriteString(ifEmpty)
				continue
			}
			b.WriteByte('=')
		}
		escapeURI(b, v, reserved)
	}
	return nil
}

// escapeURI percent-encodes v: everything but the unreserved characters, and with reserved
// also the reserved ones and existing percent-encodings are kept.
func escapeURI(b *strings.Builder, v string, reserved bool) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		case reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
			b.WriteByte(c)
		case reserved && c == '%' && i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
