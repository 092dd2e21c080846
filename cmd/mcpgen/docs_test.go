package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/docscheck"
	"github.com/urfave/cli/v3"
)

// TestDocs checks the project's documentation (README.md, docs/, the examples' READMEs):
// links and anchors resolve, Go blocks that are complete files generate and vet, and the
// mcpgen commands shown parse as mcpgen's own command line parses them. The test command
// runs it in a step of its own, before the long tests.
func TestDocs(t *testing.T) {
	problems, err := docscheck.Check(context.Background(), docscheck.Options{Root: "../..", Command: parseOnly})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestREADMEIsShort keeps the README a front door: under 300 lines, the rest in docs/.
func TestREADMEIsShort(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n >= 300 {
		t.Errorf("README.md has %d lines; keep it under 300: move the detail to the page of docs/ it belongs to and link it", n)
	}
}

// parseOnly parses an mcpgen command line exactly as run does, with the real commands and
// flags, and runs nothing: every action is replaced by one that only notes which command
// was reached. It returns what mcpgen would say is wrong with the line.
func parseOnly(args []string) error {
	var code int
	app := newApp(&code, io.Discard, io.Discard)
	var reached *cli.Command
	var reachedArgs []string
	var stub func(*cli.Command)
	stub = func(c *cli.Command) {
		if c.Action != nil {
			c.Action = func(ctx context.Context, cmd *cli.Command) error {
				reached, reachedArgs = cmd, cmd.Args().Slice()
				return nil
			}
		}
		for _, sub := range c.Commands {
			stub(sub)
		}
	}
	stub(app)
	if err := app.Run(context.Background(), append([]string{"mcpgen"}, args...)); err != nil {
		return err
	}
	if reached == app || reached != nil && (reached.Name == "generate" || reached.Name == "check") {
		return checkPackageArgs(reachedArgs) // what runGenerate refuses before it loads anything
	}
	return nil
}

// The judge of the documentation's commands must refuse what mcpgen refuses, and take what
// it takes.
func TestParseOnly(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the error; "" for none
	}{
		{[]string{}, ""},
		{[]string{"./..."}, ""},
		{[]string{"check", "./..."}, ""},
		{[]string{"--snapshot", "-v", "./tools"}, ""},
		{[]string{"new", "--module", "example.com/hello", "../hello"}, ""},
		{[]string{"call", "--stdio", "./hello", "greet", "name=Ada"}, ""},
		{[]string{"tools", "--schema", "mcp_x_y", "x"}, ""},
		{[]string{"import", "--check", "-o", "weatherclient"}, ""},
		{[]string{"help", "call"}, ""},
		{[]string{"--version"}, ""},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"check", "tools"}, `unknown command "tools"`},
		{[]string{"call", "--nope", "weather", "get_weather"}, "flag provided but not defined: -nope"},
		{[]string{"new", "--schema", "x", "dir"}, "flag provided but not defined: -schema"},
		{[]string{"tools", "--schema"}, "flag needs an argument"},
		{[]string{"--tag", "x", "./..."}, "flag provided but not defined: -tag"},
	} {
		err := parseOnly(tc.args)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("mcpgen %s: %v, want no error", strings.Join(tc.args, " "), err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("mcpgen %s: %v, want an error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}
