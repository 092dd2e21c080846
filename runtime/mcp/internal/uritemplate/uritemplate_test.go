package uritemplate

import (
	"reflect"
	"testing"
)

// The examples of RFC 6570 section 3.2 that take single strings.
func TestExpand(t *testing.T) {
	vars := map[string]string{"var": "value", "hello": "Hello World!", "path": "/foo/bar", "empty": "", "x": "1024", "y": "768"}
	for tmpl, want := range map[string]string{
		"{var}":                     "value",
		"{hello}":                   "Hello%20World%21",
		"{+path}/here":              "/foo/bar/here",
		"{+hello}":                  "Hello%20World!",
		"{#path,x}/here":            "#/foo/bar,1024/here",
		"map?{x,y}":                 "map?1024,768",
		"X{.var}":                   "X.value",
		"{/var,x}/here":             "/value/1024/here",
		"{;x,y,empty}":              ";x=1024;y=768;empty",
		"{?x,y,empty}":              "?x=1024&y=768&empty=",
		"?fixed=yes{&x}":            "?fixed=yes&x=1024",
		"{var:3}":                   "val",
		"{undef}":                   "",
		"{?undef,x}":                "?x=1024",
		"test://template/{id}/data": "test://template/%2Fid/data",
		"file:///{+path}":           "file:////foo/bar",
		"weather://{city}/forecast": "weather://S%C3%A3o%20Paulo/forecast",
	} {
		v := vars
		if tmpl == "test://template/{id}/data" {
			v = map[string]string{"id": "/id"}
		}
		if tmpl == "weather://{city}/forecast" {
			v = map[string]string{"city": "São Paulo"}
		}
		got, err := Expand(tmpl, v)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", tmpl, got, err, want)
		}
	}
	for _, bad := range []string{"{open", "{a:x}", "{,}"} {
		if _, err := Expand(bad, vars); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if got := Variables("a{b}{?c,d*}{+b}{e:2}"); !reflect.DeepEqual(got, []string{"b", "c", "d", "e"}) {
		t.Errorf("variables %q", got)
	}
}
