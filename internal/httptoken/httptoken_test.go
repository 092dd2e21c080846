package httptoken

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestIsToken(t *testing.T) {
	for s, want := range map[string]bool{
		"Region": true, "x_y-z.1": true, "a!#$%&'*+-.^_`|~": true,
		"": false, "A B": false, "a:b": false, "a\r\nb": false, "é": false, "a/b": false,
	} {
		if got := IsToken(s); got != want {
			t.Errorf("IsToken(%q) = %v", s, got)
		}
	}
}

func TestHeaders(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a":   map[string]any{"type": "string", Keyword: "Same"},
			"b/c": map[string]any{"type": "object", "properties": map[string]any{"d": map[string]any{Keyword: "same"}}},
			"e":   map[string]any{"type": "array", "items": map[string]any{Keyword: "Item"}},
			"f":   map[string]any{Keyword: "A B", "default": map[string]any{Keyword: "Value"}},
		},
	}
	var got []string
	for _, h := range Headers(schema) {
		same := ""
		if h.Same != nil {
			same = h.Same.Pointer
		}
		got = append(got, fmt.Sprintf("%s %q %v %q %s", h.Pointer, h.Name, h.OnPath, h.Path, same))
	}
	want := []string{
		`/properties/a "Same" true ["a"] `,
		`/properties/b~1c/properties/d "same" true ["b/c" "d"] /properties/a`,
		`/properties/e/items "Item" false [] `,
		`/properties/f "" true ["f"] `,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Headers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
