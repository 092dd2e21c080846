package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

var update = flag.Bool("update", false, "rewrite the expected help texts in testdata/help")

// commands are mcpgen's commands, as --help lists them.
var commands = []string{"generate", "check", "new", "version", "servers", "tools", "resources", "prompts", "call", "read", "prompt", "import", "openapi", "trust"}

// The help of mcpgen and of each command, word for word: testdata/help/NAME.txt (-update
// rewrites them). Each command lists its own flags only: call has no --check, --tags, -o
// or --snapshot, which are generating's.
func TestHelpTexts(t *testing.T) {
	home := t.TempDir() // the user's configuration directory is named in the help
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, name := range append([]string{""}, commands...) {
		args, file := []string{"--help"}, "mcpgen.txt"
		if name != "" {
			args, file = []string{name, "--help"}, name+".txt"
		}
		code, out, errOut := mcpgen(t, args...)
		if code != 0 || errOut != "" {
			t.Errorf("mcpgen %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
			continue
		}
		path := filepath.Join("testdata", "help", file)
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to write it)", err)
		}
		if out != string(want) {
			t.Errorf("mcpgen %s differs from %s (go test -update rewrites it):\n%s", strings.Join(args, " "), path, udiff.Unified(path, "got", string(want), out))
		}
		for _, line := range strings.Split(out, "\n") {
			if len(line) > helpWidth+12 { // the name line of a command carries its usage
				t.Errorf("mcpgen %s: a line of %d characters: %q", strings.Join(args, " "), len(line), line)
			}
		}
	}
}

// No command but generate and check takes generating's flags, and no command takes
// another's.
func TestFlagsAreTheCommandsOwn(t *testing.T) {
	for _, c := range []struct{ args []string }{
		{[]string{"call", "--check", "s", "t"}},
		{[]string{"call", "--tags", "x", "s", "t"}},
		{[]string{"call", "--snapshot", "s", "t"}},
		{[]string{"servers", "-o", "x.go"}},
		{[]string{"tools", "--args", "{}"}},
		{[]string{"read", "--schema", "x", "s", "u"}},
		{[]string{"new", "--check", "dir"}},
		{[]string{"check", "--snapshot", "./x"}},
		{[]string{"version", "--tags", "x"}},
		{[]string{"trust", "--config", "x"}},
	} {
		code, out, errOut := mcpgen(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "flag provided but not defined") {
			t.Errorf("mcpgen %s: exit %d, want 2 and an unknown flag\n%s%s", strings.Join(c.args, " "), code, out, errOut)
		}
	}
}

// The top-level USAGE lists every command with the arguments its own help names.
func TestUsageListsEveryCommand(t *testing.T) {
	usage := map[string]string{} // command -> its line of USAGE
	for _, line := range strings.Split(usageText, "\n") {
		if fields := strings.Fields(line); len(fields) > 1 && fields[0] == "mcpgen" && !strings.ContainsAny(fields[1][:1], "-[") {
			usage[fields[1]] = line
		}
	}
	var names []string
	for _, c := range newApp(new(int), io.Discard, io.Discard).Commands {
		names = append(names, c.Name)
		line, ok := usage[c.Name]
		switch {
		case !ok:
			t.Errorf("USAGE has no line for %s", c.Name)
		case !strings.HasSuffix(line, " "+c.ArgsUsage) && c.ArgsUsage != "":
			t.Errorf("USAGE's line for %s, %q, does not end with its arguments %q", c.Name, line, c.ArgsUsage)
		}
	}
	if !slices.Equal(names, commands) {
		t.Errorf("the commands are %q, want %q (add the new one to commands and to USAGE)", names, commands)
	}
	if _, ok := usage["help"]; !ok {
		t.Error("USAGE has no line for help")
	}
	if len(usage) != len(names)+1 {
		t.Errorf("USAGE names %d commands, there are %d: %q", len(usage), len(names), usage)
	}
	_, out, _ := mcpgen(t, "--help")
	if !strings.Contains(out, "USAGE:\n   "+strings.ReplaceAll(usageText, "\n", "\n   ")+"\n") {
		t.Errorf("--help does not show usageText:\n%s", out)
	}
}
