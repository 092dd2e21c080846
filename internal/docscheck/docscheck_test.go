package docscheck

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func problemStrings(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func expect(t *testing.T, got []Problem, want []string) {
	t.Helper()
	if g := problemStrings(got); !slices.Equal(g, want) {
		t.Errorf("problems:\n\t%s\nwant:\n\t%s", strings.Join(g, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// Every kind of broken link is found, at its line, and nothing that resolves is: files,
// directories, headings by GitHub's rules (code, punctuation, duplicates, setext), HTML
// anchors, line anchors, root-relative paths, reference definitions, HTML links; text in
// code spans and code blocks is no link.
func TestLinks(t *testing.T) {
	got, err := Check(context.Background(), Options{Root: "testdata/links", Pages: []string{"README.md", "docs/b.md"}, NoCompile: true})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, got, []string{
		`README.md:17: link "missing.md": missing.md does not exist`,
		`README.md:17: link "docs/b.md#nope": docs/b.md has no heading with the anchor #nope`,
		`README.md:18: link "../../outside.md": leads out of the repository`,
		`README.md:18: link "code.txt#L9": code.txt has 3 lines, not 9`,
		`README.md:19: link "sub#x": sub is a directory: an anchor needs a file`,
		`README.md:19: link "docs/b.md#second-headin": docs/b.md has no heading with the anchor #second-headin; did you mean #second-heading?`,
		`README.md:20: link "code.txt#top": #top: a file that is not Markdown has only line anchors (#L10, #L10-L20)`,
		`README.md:22: link "docs/missing.md": docs/missing.md does not exist`,
		`docs/b.md:20: link "../README.md#nowhere": README.md has no heading with the anchor #nowhere`,
	})
}

func TestGitHubSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Quickstart":                                   "quickstart",
		"Revision 2026-07-28 (stateless)":              "revision-2026-07-28-stateless",
		"Typed clients: `mcpgen import`":               "typed-clients-mcpgen-import",
		"From the terminal: `mcpgen servers`, `tools`": "from-the-terminal-mcpgen-servers-tools",
		"HTTP+SSE (revision 2024-11-05)":               "httpsse-revision-2024-11-05",
		"**Bold** and [a link](x.md)":                  "bold-and-a-link",
		"snake_case stays":                             "snake_case-stays",
		"Ünïcode letters":                              "ünïcode-letters",
	} {
		if got := githubSlug(heading); got != want {
			t.Errorf("githubSlug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// Go blocks that are complete files are generated and vetted, and each problem lands on its
// line in the page: a type error, a generator diagnostic, a vet finding, and one in a list
// item's indented block. Fragments and blocks that opt out are left alone; blocks of one
// dir= are one package; a block with //mcp: directives is generated first, with this
// checkout's mcpgen.
func TestGoBlocks(t *testing.T) {
	got, err := Check(context.Background(), Options{Root: "testdata/code", Pages: []string{"README.md"}, ModuleDir: "../.."})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`README.md:26: go vet: cannot use "not an int" (untyped string constant) as int value in return statement`,
		`README.md:94: mcpgen: field In.A: unknown jsonschema tag key "minLenght" (hint: did you mean "minLength"?)`,
		`README.md:110: go vet: fmt.Printf format %d has arg "a string" of wrong type string`,
		`README.md:120: go vet: cannot use "not an int" (untyped string constant) as int value in return statement`,
	}
	if g := problemStrings(got); !slices.Equal(g, want) {
		// The type checker's wording is the toolchain's: compare the places and the gist.
		if len(g) != len(want) {
			t.Fatalf("problems:\n\t%s\nwant:\n\t%s", strings.Join(g, "\n\t"), strings.Join(want, "\n\t"))
		}
		for i := range g {
			if before, _, _ := strings.Cut(g[i], ": "); !strings.HasPrefix(want[i], before+": ") {
				t.Errorf("problem %d at %s, want %s", i, g[i], want[i])
			}
		}
	}
}

// A page whose Go blocks are all fine has no problems, and the blocks really were compiled:
// the same page with one mistake has one.
func TestGoBlocksCompile(t *testing.T) {
	dir := t.TempDir()
	good := "# Fine\n\n```go\npackage fine\n\nimport \"github.com/mcpgen/mcpgen/runtime/mcp\"\n\nvar S = mcp.NewServer(mcp.Implementation{Name: \"x\"}, nil)\n```\n"
	write(t, dir+"/good.md", good)
	write(t, dir+"/bad.md", strings.Replace(good, "mcp.NewServer", "mcp.NewServr", 1))
	got, err := Check(context.Background(), Options{Root: dir, Pages: []string{"good.md", "bad.md"}, ModuleDir: "../.."})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].File != "bad.md" || got[0].Line != 8 || !strings.Contains(got[0].Msg, "NewServr") {
		t.Errorf("problems: %v; want one, bad.md:8 about NewServr", got)
	}
}

// The mcpgen commands of shell blocks (and //go:generate lines) reach the parser with
// their arguments as the shell would split them; other programs, comments, redirections,
// console output, blocks that opt out and blocks that are not shell are left alone. What
// the parser refuses is a problem at the command's line.
func TestCommands(t *testing.T) {
	var seen [][]string
	parse := func(args []string) error {
		seen = append(seen, args)
		if slices.Contains(args, "--bad") {
			return errors.New("flag provided but not defined: -bad")
		}
		return nil
	}
	got, err := Check(context.Background(), Options{Root: "testdata/commands", Pages: []string{"README.md"}, NoCompile: true, Command: parse})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, got, []string{
		`README.md:4: mcpgen call --bad weather get_weather: flag provided but not defined: -bad`,
		`README.md:17: mcpgen servers --bad: flag provided but not defined: -bad`,
	})
	want := [][]string{
		{"call", "--bad", "weather", "get_weather"},
		{"check", "./..."},
		{"new", "../hello"},
		{"tools"},
		{"servers"},
		{"call", "s", "t", "a=b c", `d=e "f"`, "--json"},
		{"tools", "--json"},
		{"version"},
		{"servers", "--bad"},
		{"import", "--stdio", "npx -y server .", "-o", "filesystem"},
	}
	if !slices.EqualFunc(seen, want, slices.Equal) {
		t.Errorf("commands parsed:\n\t%q\nwant:\n\t%q", seen, want)
	}
}

func TestShellWords(t *testing.T) {
	for in, want := range map[string][]string{
		`mcpgen call s t x=1`:        {"mcpgen", "call", "s", "t", "x=1"},
		`a 'b c' "d \"e\" \$f" g\ h`: {"a", "b c", `d "e" $f`, "g h"},
		`a # comment`:                {"a"},
		`a#b`:                        {"a#b"},
		`a && b || c; d | e & f`:     {"a", "&&", "b", "||", "c", ";", "d", "|", "e", "&", "f"},
		`a > out 2>&1 < in`:          {"a", redirect, "out", redirect, "in"},
		`a --args='{"k": "v w"}'`:    {"a", `--args={"k": "v w"}`},
	} {
		got, err := shellWords(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("shellWords(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := shellWords(`a 'b`); err == nil {
		t.Error("an unclosed quote is not reported")
	}
}

// Mistakes in the pages themselves are problems too: a fence never closed, a docscheck
// comment that is not before a block, an option it does not know.
func TestPageMistakes(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/a.md", "# A\n\n<!-- docscheck: skipp -->\n```go\npackage a\n```\n\n<!-- docscheck: skip -->\n\ntext\n\n```sh\nmcpgen\n")
	got, err := Check(context.Background(), Options{Root: dir, Pages: []string{"a.md"}, NoCompile: true})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, got, []string{
		`a.md:3: unknown docscheck option "skipp"; the options are skip and dir=NAME (letters, digits and _)`,
		`a.md:8: a docscheck comment must come right before a code block`,
		`a.md:12: a code block that is never closed`,
	})
}

// The project's pages are README.md, docs/ and the examples' READMEs.
func TestProjectPages(t *testing.T) {
	pages, err := projectPages("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.md", "docs/README.md", "docs/security.md"} {
		if !slices.Contains(pages, want) {
			t.Errorf("%s is not checked; the pages are %v", want, pages)
		}
	}
	for _, p := range pages {
		if strings.HasPrefix(p, "examples/") && !strings.HasSuffix(p, "/README.md") {
			t.Errorf("%s is checked, but only the examples' READMEs should be", p)
		}
	}
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A page that lives elsewhere (a new project's README) links into the repository by URL;
// those links are checked against the repository as relative ones are.
func TestRepoLinks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/README.md", "# P\n\n[ok](https://example.invalid/blob/main/docs/b.md#second-heading)\n"+
		"[no heading](https://example.invalid/blob/main/docs/b.md#nope)\n[no file](https://example.invalid/blob/main/docs/c.md)\n"+
		"[own](#p) [elsewhere](https://example.invalid/tree/main/docs)\n")
	got, err := Check(context.Background(), Options{Root: dir, Pages: []string{"README.md"}, NoCompile: true,
		RepoURL: "https://example.invalid/blob/main/", RepoRoot: "testdata/links"})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, got, []string{
		`README.md:4: link "https://example.invalid/blob/main/docs/b.md#nope": docs/b.md has no heading with the anchor #nope`,
		`README.md:5: link "https://example.invalid/blob/main/docs/c.md": docs/c.md does not exist`,
	})
}
