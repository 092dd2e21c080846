package analyze

import (
	"strings"
	"testing"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"GetWeather": "get_weather", "HTTPServer": "http_server", "ListIDs": "list_ids", "getURLs": "get_urls",
		"Now": "now", "A": "a", "V2Search": "v2_search", "searchV2": "search_v2", "IsOK": "is_ok", "parseJSONValue": "parse_json_value",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"get_weather": true, "admin.tools.list": true, "DATA_EXPORT_v2": true, "a-b": true,
		"": false, "get weather": false, "naïve": false, "a/b": false, strings.Repeat("x", 128): true, strings.Repeat("x", 129): false,
	} {
		if got := validName(name); got != want {
			t.Errorf("validName(%q) = %v", name, got)
		}
	}
}
