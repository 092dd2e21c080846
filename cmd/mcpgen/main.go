// Command mcpgen generates typed MCP servers from annotated Go functions, and reaches MCP
// servers from the terminal.
//
// Put //go:generate go tool mcpgen in a package, mark functions with //mcp:tool, and run
// go generate. The guide, https://github.com/mcpgen/mcpgen/blob/main/docs/README.md, has the
// annotations and the generated API. mcpgen servers, tools, call, read and prompt connect to
// the servers of .mcp.json (or one given with --stdio, --url, --sse or --ws).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/importer"
	"github.com/mcpgen/mcpgen/scaffold"
	"github.com/urfave/cli/v3"
)

// Exit codes.
const (
	exitOK    = 0
	exitStale = 1 // check mode: a generated file is missing or out of date
	exitError = 2 // problems in the code, bad usage, or a failure to load
)

func main() {
	os.Exit(run(context.Background(), os.Args, os.Stdout, os.Stderr))
}

// usageError marks errors in how mcpgen was invoked.
type usageError struct{ error }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	code := exitOK
	app := newApp(&code, stdout, stderr)
	if err := app.Run(ctx, args); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(stderr, "Run 'mcpgen --help' for usage.")
		}
		return exitError
	}
	return code
}

// newApp is mcpgen's command line: its commands and flags, whose actions set *code.
func newApp(code *int, stdout, stderr io.Writer) *cli.Command {
	// Only --version: -v is --verbose.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Local: true, Usage: "print mcpgen's version"}
	cli.FlagStringer = flagHelp
	generate := func(check bool) cli.ActionFunc {
		return func(ctx context.Context, cmd *cli.Command) error {
			*code = runGenerate(cmd, check || cmd.Bool("check"), stdout, stderr)
			return nil
		}
	}
	usage := func(ctx context.Context, cmd *cli.Command, err error, _ bool) error {
		return usageError{err}
	}
	return &cli.Command{
		Name:      "mcpgen",
		Usage:     "generate typed MCP servers from Go functions; reach MCP servers from the terminal",
		UsageText: usageText,
		Description: "With no command, mcpgen generates code for the packages named (default: the current\n" +
			"directory's), which is what //go:generate go tool mcpgen runs. Each package with\n" +
			"//mcp:tool, //mcp:resource, //mcp:prompt or //mcp:complete functions (or mcp.Elicit\n" +
			"calls) gets one file, " + gen.DefaultFileName + ", declaring " + gen.RegisterFunc + ". It prints nothing on success\n" +
			"unless -v is given.\n\n" +
			"servers, tools, call, read, prompt and import reach the servers of .mcp.json (or\n" +
			"--config FILE); --stdio 'COMMAND ARGS', --url URL, --sse URL or --ws URL names one server\n" +
			"instead, and SERVER is then left out. trust lists and forgets the project\n" +
			"configurations you approved. 'mcpgen help COMMAND' tells more of each.\n\n" +
			"Exit status: 0 on success, 1 when check finds a stale or missing file, 2 on errors.",
		ArgsUsage: "[packages]",
		Version:   version(),
		// Its flags are generating's: no command but generate has them.
		CustomRootCommandHelpTemplate: strings.ReplaceAll(cli.RootCommandHelpTemplate, "GLOBAL OPTIONS:", "OPTIONS:"),
		Flags:                         generateFlags(false),
		Action:                        generate(false),
		OnUsageError:                  usage,
		Writer:                        stdout,
		ErrWriter:                     stderr,
		ExitErrHandler:                func(context.Context, *cli.Command, error) {},
		Commands: append([]*cli.Command{
			{
				Name:         "generate",
				Usage:        "write the generated file of each package (the default)",
				ArgsUsage:    "[packages]",
				Flags:        generateFlags(false),
				Action:       generate(false),
				OnUsageError: usage,
			},
			{
				Name:         "check",
				Usage:        "exit 1 and print a diff if a generated file is stale or missing; write nothing",
				ArgsUsage:    "[packages]",
				Flags:        generateFlags(true),
				Action:       generate(true),
				OnUsageError: usage,
			},
			{
				Name:      "new",
				Usage:     "create a new MCP server project that builds, tests and serves on its first run",
				ArgsUsage: "<dir>",
				Description: "Writes a Go module into <dir> (new or empty): a server with one example tool and its\n" +
					"generated code, tests (one fails when the generated code is stale), a README on growing\n" +
					"it and registering it with MCP clients, .gitignore and a CI workflow. go.mod names\n" +
					"mcpgen as a tool dependency; a development build of mcpgen (run from its checkout)\n" +
					"points it at that checkout's working tree with a replace directive, which CI cannot\n" +
					"reach. Runs go mod tidy, which may download modules.\n\n" +
					"--telemetry makes the server export OpenTelemetry traces and metrics (as the OTEL_*\n" +
					"variables say) and serve Prometheus's /metrics (--metrics); its go.mod then requires\n" +
					"their modules. Without it the project requires none of them.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "module", Usage: "the new module's `path` (default: the directory's name)"},
					&cli.StringFlag{Name: "name", Usage: "the server's `name`, also its binary's (default: the directory's name)"},
					&cli.StringFlag{Name: "mcpgen-dir", Usage: "use the mcpgen checkout in `dir` (default: the one this mcpgen was built from, if any)"},
					&cli.StringFlag{Name: "from-openapi", Usage: "serve the operations of the OpenAPI document `SPEC` (a file or URL) too, a tool each: package api, generated by mcpgen openapi"},
					&cli.BoolFlag{Name: "telemetry", Usage: "export OpenTelemetry traces and metrics, and serve Prometheus's /metrics"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					*code = runNew(ctx, cmd, stdout, stderr)
					return nil
				},
				OnUsageError: usage,
			},
			{
				Name:  "version",
				Usage: "print mcpgen's version",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					fmt.Fprintln(stdout, "mcpgen", version())
					return nil
				},
				OnUsageError: usage,
			},
		}, append(reachCommands(code, stdout, stderr, usage), importCommand(code, stdout, stderr, usage), openapiCommand(code, stdout, stderr, usage), trustCommand(code, stdout, stderr, usage))...),
	}
}

// checkPackageArgs refuses arguments of generate and check that are not packages.
// Packages are paths (./tools, ./..., example.com/x); a bare word is more likely a mistyped
// command, and no standard library package has tools to generate.
func checkPackageArgs(args []string) error {
	for _, arg := range args {
		if !strings.ContainsAny(arg, "./") {
			return fmt.Errorf("unknown command %q; packages are given as paths such as ./... or ./tools", arg)
		}
	}
	return nil
}

// usageText is the top-level USAGE: every command with its arguments, and the flags of
// generating that the guide (docs/cli.md) documents. TestUsageListsEveryCommand keeps
// it in step with the commands.
const usageText = `mcpgen [-v] [--check] [--tags t1,t2] [-o name.go] [--snapshot] [packages]
mcpgen generate [-v] [--tags t1,t2] [-o name.go] [--snapshot] [packages]
mcpgen check [--tags t1,t2] [-o name.go] [packages]
mcpgen new [--module path] [--name name] [--telemetry] [--mcpgen-dir dir] <dir>
mcpgen new --from-openapi SPEC [flags of new] <dir>
mcpgen servers [SERVER...]
mcpgen tools [--schema NAME] [SERVER...]
mcpgen resources [SERVER...]
mcpgen prompts [SERVER...]
mcpgen call [--args JSON|@FILE|-] SERVER TOOL [key=value ...]
mcpgen read SERVER URI
mcpgen prompt SERVER NAME [key=value ...]
mcpgen import [-o DIR] [-p NAME] [--check] [--from FILE] [--save FILE] [SERVER | ./PACKAGE]
mcpgen openapi [-o DIR] [-p NAME] [--main] [--include SEL] [--exclude SEL] [--check] SPEC
mcpgen trust [--list | --forget FILE | --forget-all]
mcpgen version | --version
mcpgen help [COMMAND] | --help`

// generateFlags are the flags of generating: of mcpgen itself and of generate, and but for
// --check, -v and --snapshot, of check. Local: the commands that reach servers have flags
// of their own, and none of these.
func generateFlags(check bool) []cli.Flag {
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "check", Local: true, Usage: "verify that generated files are current instead of writing them; exit 1 with a diff if not"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Local: true, Usage: "list the files written, and note the tools registered with mcpfunc.AddTool that //mcp:tool could generate"},
		&cli.StringFlag{Name: "tags", Local: true, Usage: "extra build `tags` to load packages with, comma-separated"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Local: true, Value: gen.DefaultFileName, Usage: "`name` of the file generated in each package"},
		&cli.BoolFlag{Name: "snapshot", Local: true, Usage: "also write each package's " + gen.SnapshotFileName + ": the schemas its callers rely on, which check then holds it to"},
	}
	if check {
		return []cli.Flag{flags[2], flags[3]}
	}
	return flags
}

// runGenerate generates, then writes the files or, in check mode, compares them.
func runGenerate(cmd *cli.Command, check bool, stdout, stderr io.Writer) int {
	if err := checkPackageArgs(cmd.Args().Slice()); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\nRun 'mcpgen --help' for usage.\n", err)
		return exitError
	}
	cfg := gen.Config{Patterns: cmd.Args().Slice(), FileName: cmd.String("output")}
	if tags := cmd.String("tags"); tags != "" {
		cfg.BuildTags = strings.Split(tags, ",")
	}
	res, err := gen.Generate(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return exitError
	}
	cwd, _ := os.Getwd()
	if len(res.Diagnostics) > 0 {
		for _, d := range res.Diagnostics {
			if d.Pos.Filename == "" {
				fmt.Fprint(stderr, "mcpgen: ")
			}
			fmt.Fprintln(stderr, d.Format(cwd))
		}
		return exitError
	}
	if check {
		return runCheck(res.Files, cwd, stdout, stderr)
	}
	if cmd.Bool("verbose") {
		for _, n := range res.Notes {
			fmt.Fprintln(stderr, n.Format(cwd))
		}
	}
	for _, f := range res.Files {
		change, err := gen.Write(f)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return exitError
		}
		if cmd.Bool("verbose") && change != gen.Unchanged {
			fmt.Fprintf(stdout, "%s %s\n", change, relative(cwd, f.Path))
		}
		if !cmd.Bool("snapshot") {
			continue
		}
		if change, err = gen.WriteSnapshot(f); err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return exitError
		}
		if cmd.Bool("verbose") && change != gen.Unchanged {
			fmt.Fprintf(stdout, "%s %s\n", change, relative(cwd, gen.SnapshotPath(f)))
		}
	}
	return exitOK
}

// runNew creates a project.
func runNew(ctx context.Context, cmd *cli.Command, stdout, stderr io.Writer) int {
	if cmd.Args().Len() != 1 {
		fmt.Fprintln(stderr, "mcpgen new: give exactly one directory: mcpgen new <dir>\nRun 'mcpgen new --help' for usage.")
		return exitError
	}
	var src scaffold.Source
	var err error
	if dir := cmd.String("mcpgen-dir"); dir != "" {
		src, err = scaffold.Checkout(dir)
	} else {
		src, err = scaffold.Local()
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen new: %v\n", err)
		return exitError
	}
	p, err := scaffold.New(ctx, scaffold.Options{Dir: cmd.Args().First(), Module: cmd.String("module"), Name: cmd.String("name"), MCPGen: src, Telemetry: cmd.Bool("telemetry"), OpenAPI: cmd.String("from-openapi")})
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen new: %v\n", err)
		return exitError
	}
	cwd, _ := os.Getwd()
	rel := relative(cwd, p.Dir)
	if cmd.Bool("verbose") {
		for _, f := range p.Files {
			fmt.Fprintf(stdout, "created %s\n", filepath.Join(rel, f))
		}
	}
	fmt.Fprintf(stdout, "Created %s, module %s, server %s", rel, p.Module, p.Name)
	if src.Dir != "" {
		fmt.Fprintf(stdout, ", using the mcpgen checkout at %s", src.Dir)
	}
	fmt.Fprintf(stdout, ".\n\n  cd %s\n  go test ./...   # test it\n  go run .        # serve it over stdio (go run . --http 127.0.0.1:8080 for HTTP)\n\nREADME.md says how to add tools and register the server with MCP clients.\n", rel)
	if src.Dir != "" {
		fmt.Fprintln(stdout, "go.mod uses the checkout's working tree as it is, which CI cannot reach: README.md\n(\"Which mcpgen\") says how to pin it, and what CI needs.")
	}
	return exitOK
}

func runCheck(files []gen.File, cwd string, stdout, stderr io.Writer) int {
	stale := 0
	for _, f := range files {
		change, err := gen.Compare(f)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return exitError
		}
		if change == gen.Unchanged {
			continue
		}
		stale++
		diff, err := gen.Diff(f, relative(cwd, f.Path))
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return exitError
		}
		fmt.Fprint(stdout, diff)
		fmt.Fprintf(stderr, "mcpgen: %s is %s\n", relative(cwd, f.Path), map[gen.Change]string{
			gen.Created: "missing", gen.Updated: "stale", gen.Removed: "no longer needed (no //mcp: directives left)",
		}[change])
	}
	if stale > 0 {
		fmt.Fprintln(stderr, "mcpgen: run 'go generate ./...' to update generated files")
	}
	// A package with a committed snapshot is held to it: a change that breaks callers fails.
	breaking := 0
	for _, f := range files {
		changes, found, err := gen.CompareSnapshot(f)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return exitError
		}
		if !found || len(changes) == 0 {
			continue
		}
		rel := relative(cwd, gen.SnapshotPath(f))
		for _, c := range changes {
			fmt.Fprintf(stdout, "%s: %s\n", rel, c)
		}
		if importer.Breaking(changes) {
			breaking++
			fmt.Fprintf(stderr, "mcpgen: the tools of %s changed in ways that break their callers; if that is meant, run 'mcpgen --snapshot' to accept it\n", f.Package)
		} else {
			fmt.Fprintf(stderr, "mcpgen: note: the tools of %s changed compatibly since %s; 'mcpgen --snapshot' records it\n", f.Package, rel)
		}
	}
	// A package mcpgen openapi generated is held to its document too.
	switch checkOpenAPIPackages(files, cwd, stdout, stderr) {
	case exitError:
		return exitError
	case exitStale:
		stale++
	}
	if stale > 0 || breaking > 0 {
		return exitStale
	}
	return exitOK
}

func relative(base, path string) string {
	if rel, err := filepath.Rel(base, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// version is the version of the mcpgen module this binary was built from: its own when
// installed with go install, the dependency's when run with go tool inside another module.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	mod := &info.Main
	if mod.Path != "github.com/mcpgen/mcpgen" {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/mcpgen/mcpgen" {
				mod = dep
				break
			}
		}
	}
	if mod.Replace != nil {
		return mod.Version + " (replaced by " + mod.Replace.Path + ")"
	}
	if mod.Version == "" || mod.Version == "(devel)" {
		return "(devel)"
	}
	return mod.Version
}
