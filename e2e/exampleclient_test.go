package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// examples/client, the README's client example, as a user runs it: against a server it
// starts (answering the server's form at the terminal) and against one over HTTP.
func TestExampleClient(t *testing.T) {
	t.Run("command", func(t *testing.T) {
		cmd := exec.Command(clientBin, "-call", "test_elicitation", "-args", `{"message":"Who are you?"}`, "-read", "test://static-text", everythingBin)
		cmd.Stdin = strings.NewReader("ada\nada@example.com\n")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, want := range []string{
			"connected to mcpgen-everything 1.0.0 (revision 2026-07-28)\n",
			"tool test_simple_text: Returns a fixed text.\n",
			"the server asks: Who are you?\n",
			`User response: action=accept, content={"username":"ada","email":"ada@example.com"}` + "\n",
			"test://static-text:\nThis is the content of the static text resource.\n",
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("url", func(t *testing.T) {
		srv := startHTTP(t, weatherBin)
		out, err := exec.Command(clientBin, "-url", srv.url, "-call", "get_weather", "-args", `{"city":"Lisbon"}`).CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(string(out), `{"city":"Lisbon","units":"metric"`) {
			t.Errorf("output:\n%s", out)
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"-call", "no_such_tool", everythingBin}, `unknown tool "no_such_tool"`},
			{[]string{"-call", "test_error_handling", everythingBin}, "the tool failed: "},
			{[]string{"-url", "http://127.0.0.1:1/mcp"}, "POST http://127.0.0.1:1/mcp: dial tcp 127.0.0.1:1: connect: connection refused"},
			{[]string{"/no/such/server"}, "/no/such/server"},
		} {
			out, err := exec.Command(clientBin, tc.args...).CombinedOutput()
			if code := exitCode(err); code != 1 || !strings.Contains(string(out), tc.want) {
				t.Errorf("client %s: exit %d, want 1 and %q in:\n%s", strings.Join(tc.args, " "), code, tc.want, out)
			}
		}
	})
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
