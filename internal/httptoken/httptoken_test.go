package httptoken

import "testing"

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
