package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/ptytest"
)

// mcpgen call answers what examples/everything asks of its client: its roots (the current
// directory, or --root's), in a session's request and in a result's input requests of the
// stateless revision; and, at a terminal, sampling with tools, the person writing the
// model's tool uses and then its answer.
func TestCallAnswersRootsAndSamplingWithTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"test_roots"}, "1 roots\nfile://" + dir + " " + filepath.Base(dir) + "\n"},
		{[]string{"test_roots", "--root", a, "--root", b}, "2 roots\nfile://" + a + " " + filepath.Base(a) + "\nfile://" + b + " " + filepath.Base(b) + "\n"},
		{[]string{"test_input_required_result_list_roots"}, "Roots: file://" + dir + "\n"},
		{[]string{"test_input_required_result_list_roots", "--root", a}, "Roots: file://" + a + "\n"},
	} {
		out, errOut, code := mcpgen(t, dir, append([]string{"call", "--stdio", everythingBin}, c.args...)...)
		if code != 0 || out != c.want {
			t.Errorf("call %s: exit %d %q, want %q\n%s", strings.Join(c.args, " "), code, out, c.want, errOut)
		}
	}

	p := ptytest.Open(t)
	cmd := exec.Command(mcpgenBin, "call", "--stdio", everythingBin, "test_sampling_tools", "prompt=Weather in Paris and London?")
	cmd.Dir = dir
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Slave, &stdout, p.Slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	p.WaitFor(t, `a line "use NAME {input}" uses a tool:`+"\r\n> ")
	if !strings.Contains(p.Output(), "  user: Weather in Paris and London?\r\n  tools the model may use:\r\n    get_weather {\"city\": string}: Get current weather for a city\r\n") {
		t.Errorf("the first question:\n%s", p.Output())
	}
	p.Master.WriteString("use get_weather {\"city\": \"Paris\"}\nuse get_weather {\"city\": \"Atlantis\"}\n.\n")
	p.WaitFor(t, "Send it? ")
	p.Master.WriteString("y\n")
	p.WaitFor(t, "[result of get_weather, an error] no weather for")
	for _, want := range []string{
		"  assistant: [use of get_weather {\"city\":\"Paris\"}]\r\n  assistant: [use of get_weather {\"city\":\"Atlantis\"}]\r\n",
		"  user: [result of get_weather] Weather in Paris: 18°C, partly cloudy\r\n",
	} {
		if !strings.Contains(p.Output(), want) {
			t.Errorf("the second question lacks %q:\n%s", want, p.Output())
		}
	}
	p.Master.WriteString("Paris is mild; Atlantis is not on the map.\n.\ny\n")
	err := cmd.Wait()
	p.Closed()
	if err != nil || stdout.String() != "LLM response: Paris is mild; Atlantis is not on the map.\n" {
		t.Errorf("exit %v, stdout %q\n%s", err, stdout.String(), p.Output())
	}
}
