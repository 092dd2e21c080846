package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/openapi"
	"github.com/urfave/cli/v3"
)

// mcpgen openapi: a typed MCP server from an OpenAPI description.

func openapiCommand(code *int, stdout, stderr io.Writer, usage cli.OnUsageErrorFunc) *cli.Command {
	return &cli.Command{
		Name:      "openapi",
		Usage:     "generate a typed MCP server from an OpenAPI description: a tool per operation",
		ArgsUsage: "SPEC",
		Description: "Reads SPEC (a file or an http(s) URL; JSON or YAML; OpenAPI 3.0, 3.1 or Swagger 2.0) and\n" +
			"writes a Go package into -o DIR: a tool per operation, its arguments (parameters and body)\n" +
			"one struct with the document's descriptions, enums, formats and bounds, validated as\n" +
			"//mcp:tool's are; its 2xx response the tool's output schema and structured content.\n" +
			"Tools calls an API interface: Client implements it over HTTP (a proxy, base URL from\n" +
			"servers, --base-url or $PREFIX_BASE_URL of the generated server), or implement it yourself.\n" +
			"Credentials of the document's security schemes come from the environment or flags of the\n" +
			"generated server, never from a tool's arguments.\n\n" +
			"--include and --exclude select operations: tag:NAME, a method (GET), a path glob (/repos/*)\n" +
			"or an operationId; comma-separated or repeated.\n\n" +
			"--check writes nothing: it exits 1, naming the operations that changed, when DIR is not\n" +
			"what SPEC generates now.\n\n" +
			"Exit status: 0 success, 1 stale (--check), 2 errors.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: ".", Usage: "write the package into `DIR`"},
			&cli.StringFlag{Name: "package", Aliases: []string{"p"}, Usage: "the package's `name` (default: the directory's)"},
			&cli.BoolFlag{Name: "main", Usage: "write a runnable server (package main) instead of a library package"},
			&cli.StringSliceFlag{Name: "include", Usage: "generate only the operations `SELECTORS` match (tag:NAME, GET, /path/*, operationId)"},
			&cli.StringSliceFlag{Name: "exclude", Usage: "leave out the operations `SELECTORS` match"},
			&cli.StringFlag{Name: "name", Usage: "the server's `name` (default: the package's or the directory's); also the prefix of its environment variables"},
			&cli.BoolFlag{Name: "check", Usage: "write nothing; exit 1 naming the operations that changed if DIR is stale"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list the files written, and what was left out or typed loosely"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			*code = runOpenAPI(ctx, cmd, stdout, stderr)
			return nil
		},
		OnUsageError: usage,
	}
}

func runOpenAPI(ctx context.Context, cmd *cli.Command, stdout, stderr io.Writer) int {
	if cmd.Args().Len() != 1 {
		fmt.Fprintln(stderr, "mcpgen openapi: give one SPEC: a file or URL of an OpenAPI description\nRun 'mcpgen openapi --help' for usage.")
		return exitError
	}
	start := time.Now()
	// Generating a large API's package allocates much that lives briefly (GitHub's: 0.8 GB in
	// all, 0.44 GB at most): the collector running half as often saves a tenth of the CPU
	// for about a fifth more memory at most.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	spec := cmd.Args().First()
	dir := cmd.String("output")
	src, err := openapi.Read(ctx, spec)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen openapi: %v\n", err)
		return exitError
	}
	doc, err := openapi.Parse(src)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen openapi: %v\n", err)
		return exitError
	}
	opts := openapi.Options{Dir: dir, Package: cmd.String("package"), Main: cmd.Bool("main"), Spec: recordedSpec(spec, dir),
		Digest: src.Digest, Include: cmd.StringSlice("include"), Exclude: cmd.StringSlice("exclude"), ServerName: cmd.String("name")}
	if !cmd.Bool("check") {
		// The go command reads the package's directory, even when its files are not written yet.
		if err := os.MkdirAll(dir, 0o777); err != nil {
			fmt.Fprintf(stderr, "mcpgen openapi: %v\n", err)
			return exitError
		}
	}
	res, err := openapi.Generate(doc, opts)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen openapi: %v\n", err)
		return exitError
	}
	cwd, _ := os.Getwd()
	if cmd.Bool("check") {
		return checkOpenAPI(res, dir, cwd, stdout, stderr)
	}
	for _, f := range res.Files {
		change, err := gen.Write(f)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen openapi: %v\n", err)
			return exitError
		}
		if cmd.Bool("verbose") && change != gen.Unchanged {
			fmt.Fprintf(stdout, "%s %s\n", change, relative(cwd, f.Path))
		}
	}
	if cmd.Bool("verbose") {
		for _, n := range res.Notes {
			fmt.Fprintf(stderr, "note: %s\n", n)
		}
	}
	sel := "every operation"
	if len(opts.Include)+len(opts.Exclude) > 0 {
		sel = "the operations selected"
	}
	fmt.Fprintf(stdout, "%s: %d tools (%s of %d), OpenAPI %s (%.1fs)", relative(cwd, dir), len(res.Tools), sel, len(doc.Operations), doc.Version, time.Since(start).Seconds())
	if len(res.Notes) > 0 {
		fmt.Fprintf(stdout, "; %d notes (-v lists them)", len(res.Notes))
	}
	fmt.Fprintln(stdout)
	if opts.Main && len(res.Tools) > openapi.CatalogThreshold {
		fmt.Fprintf(stdout, "More than %d tools: the server serves them through a catalog of three tools (list_operations, describe_operation, call_operation) unless run with --tools all; --include selects fewer.\n", openapi.CatalogThreshold)
	}
	return exitOK
}

// recordedSpec is the document's location as the files record it: a file relative to the
// package's directory (so that the record holds wherever the repository is), a URL as it is.
func recordedSpec(spec, dir string) string {
	if strings.Contains(spec, "://") {
		return spec
	}
	absSpec, err1 := filepath.Abs(spec)
	absDir, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return spec
	}
	rel, err := filepath.Rel(absDir, absSpec)
	if err != nil {
		return spec
	}
	return filepath.ToSlash(rel)
}

// checkOpenAPI compares the package with what the document generates now.
func checkOpenAPI(res *openapi.Result, dir, cwd string, stdout, stderr io.Writer) int {
	stale := 0
	for _, f := range res.Files {
		change, err := gen.Compare(f)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen openapi: %v\n", err)
			return exitError
		}
		if change != gen.Unchanged {
			stale++
			fmt.Fprintf(stderr, "mcpgen openapi: %s is %s\n", relative(cwd, f.Path), map[gen.Change]string{
				gen.Created: "missing", gen.Updated: "stale", gen.Removed: "no longer generated"}[change])
		}
	}
	if stale == 0 {
		return exitOK
	}
	changes, err := openapi.Drift(filepath.Join(dir, openapi.ToolsFile), res.Tools)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen openapi: %v\n", err)
	}
	for _, c := range changes {
		fmt.Fprintln(stdout, c)
	}
	fmt.Fprintf(stderr, "mcpgen openapi: %s is not what the document generates now; run mcpgen openapi again to update it\n", relative(cwd, dir))
	return exitStale
}

// checkOpenAPIPackages generates again, from its document, each package among files that
// mcpgen openapi generated and records how, and compares: exitStale naming the operations
// that changed when one is not current. A document at a URL is not fetched: a note says so.
func checkOpenAPIPackages(files []gen.File, cwd string, stdout, stderr io.Writer) int {
	code := exitOK
	seen := map[string]bool{}
	for _, f := range files {
		dir := filepath.Dir(f.Path)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		rec, pkg, main, ok, err := openapi.ReadRecord(dir)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return exitError
		}
		if !ok {
			continue
		}
		if strings.Contains(rec.Spec, "://") {
			fmt.Fprintf(stderr, "mcpgen: note: %s was generated from %s, which check does not fetch: mcpgen openapi --check -o %s %s compares it\n",
				relative(cwd, dir), rec.Spec, relative(cwd, dir), rec.Spec)
			continue
		}
		src, err := openapi.Read(context.Background(), filepath.Join(dir, filepath.FromSlash(rec.Spec)))
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %s was generated from %s: %v\n", relative(cwd, dir), rec.Spec, err)
			return exitError
		}
		doc, err := openapi.Parse(src)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return exitError
		}
		res, err := openapi.Generate(doc, rec.Options(dir, pkg, main, src.Digest))
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %s: %v\n", relative(cwd, dir), err)
			return exitError
		}
		switch checkOpenAPI(res, dir, cwd, stdout, stderr) {
		case exitError:
			return exitError
		case exitStale:
			code = exitStale
		}
	}
	return code
}
