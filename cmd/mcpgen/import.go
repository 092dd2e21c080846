package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/importer"
	"github.com/mcpgen/mcpgen/runtime/host"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/urfave/cli/v3"
)

// mcpgen import: a typed client package from a server's schemas, and drift checks.

func importCommand(code *int, stdout, stderr io.Writer, usage cli.OnUsageErrorFunc) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "generate a typed Go client of a server's tools, prompts and resource templates",
		ArgsUsage: "[SERVER | ./PACKAGE]",
		Description: "Reads what the server offers (SERVER of .mcp.json, --stdio, --url, --sse, --ws, or a\n" +
			"snapshot saved with --save and given with --from) and writes a Go package into -o DIR:\n" +
			importer.CodeFile + ", a Client with a method per tool (arguments and results as structs),\n" +
			"prompt and resource template, and " + importer.SnapshotFile + ", the snapshot it was generated\n" +
			"from.\n\n" +
			"Given the Go package of an mcpgen server (./PACKAGE, or an import path), it reads the\n" +
			"package's //mcp: declarations and the client reuses the package's own argument and result\n" +
			"types where it can name them, with their codecs in " + importer.CodecFile + "; the others are generated\n" +
			"from the schemas, with a note saying why.\n\n" +
			"--check writes nothing. It regenerates the package from its committed snapshot and\n" +
			"compares (exit 1 with a diff when stale); given a server (or --from), it also compares the\n" +
			"committed snapshot with the server's and lists each change, breaking or compatible\n" +
			"(exit 1 when one breaks callers, 0 with a note when all are compatible).\n\n" +
			"Exit status: 0 success, 1 stale or breaking (--check), 2 errors.",
		Flags: reachFlags(
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the package into `DIR` (default: SERVERclient)"},
			&cli.StringFlag{Name: "package", Aliases: []string{"p"}, Usage: "the package's `name` (default: the directory's, or the committed file's)"},
			&cli.StringFlag{Name: "from", Usage: "read the server's schemas from a snapshot `FILE` instead of the server"},
			&cli.StringFlag{Name: "save", Usage: "write the server's snapshot to `FILE` (and generate nothing unless -o is given)"},
			&cli.BoolFlag{Name: "check", Usage: "write nothing; exit 1 if the package is stale or the server changed in a way that breaks callers"},
		),
		Action:       reachAction("import", runImport, code, stdout, stderr),
		OnUsageError: usage,
	}
}

func runImport(ctx context.Context, r *reach) error {
	cmd := r.cmd
	args := cmd.Args().Slice()
	if len(args) > 1 || (len(args) == 1 && r.oneServer()) {
		return fail(exitError, "give at most one SERVER, and none with --stdio, --url, --sse or --ws")
	}
	server, goPkg := "", ""
	if len(args) == 1 {
		if isPackagePath(args[0]) {
			goPkg = args[0]
		} else {
			server = args[0]
		}
	}
	from := cmd.String("from")
	live := server != "" || r.oneServer()
	if from != "" && (live || goPkg != "") {
		return fail(exitError, "--from reads a snapshot: give no SERVER, package, --stdio, --url, --sse or --ws with it")
	}
	dir, pkg := cmd.String("output"), "client" // --save alone generates no package
	needDir := dir == "" && cmd.String("save") == "" || dir == "" && cmd.Bool("check")
	// place settles the package's directory (by default named after the server or Go
	// package name) and name.
	place := func(name string) error {
		if needDir {
			if name == "" {
				return fail(exitError, "give the package's directory: -o DIR")
			}
			dir = strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(name)) + "client"
		}
		if dir != "" {
			var err error
			pkg, err = packageName(cmd.String("package"), dir)
			return err
		}
		return nil
	}
	if !live || !r.oneServer() { // else the server says its name once connected
		name := server
		if goPkg != "" {
			name = path.Base(strings.TrimSuffix(filepath.ToSlash(goPkg), "/"))
		}
		if err := place(name); err != nil {
			return err
		}
	}

	// The snapshot: from the server, from a file, from an mcpgen server's package (with the
	// Go types the client reuses), or (--check alone) none.
	var snap *importer.Snapshot
	var reuse *importer.Reuse
	switch {
	case goPkg != "":
		src, err := importPackage(goPkg, dir, pkg)
		if err != nil {
			return err
		}
		snap, reuse = src.Snapshot, src.Reuse
	case from != "":
		data, err := os.ReadFile(from)
		if err != nil {
			return fail(exitError, "%v", err)
		}
		if snap, err = importer.ReadSnapshot(data); err != nil {
			return fail(exitError, "%s: %v", from, err)
		}
	case live:
		// importer.Take lists what the client is made of (tools, prompts, resource
		// templates) itself; the host lists nothing.
		client := everythingClient()
		server, h, err := r.connectOne(ctx, server, &client, host.Lists{Tools: true, Prompts: true, Resources: true})
		if err != nil {
			return err
		}
		if r.oneServer() {
			if err := place(server); err != nil {
				return err
			}
		}
		c, err := h.Client(server)
		if err != nil {
			return fail(exitError, "%v", err)
		}
		if snap, err = importer.Take(ctx, c); err != nil {
			return fail(exitError, "%s: %v", server, err)
		}
	case !cmd.Bool("check"):
		return fail(exitError, "give the server: mcpgen import SERVER (of .mcp.json), --stdio 'COMMAND', --url URL, or --from FILE")
	}

	if save := cmd.String("save"); save != "" && snap != nil {
		data, err := snap.Marshal()
		if err == nil {
			err = os.WriteFile(save, data, 0o644)
		}
		if err != nil {
			return fail(exitError, "%v", err)
		}
		if cmd.String("output") == "" && !cmd.Bool("check") {
			return nil
		}
	}
	if cmd.Bool("check") {
		return checkImport(r, dir, pkg, snap, reuse)
	}
	res, err := importer.Generate(snap, importer.Options{Package: pkg, Dir: dir, Reuse: reuse})
	if err != nil {
		return fail(exitError, "%v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(exitError, "%v", err)
	}
	for _, f := range res.Files {
		if old, err := os.ReadFile(f.Path); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		if err := os.WriteFile(f.Path, f.Data, 0o644); err != nil {
			return fail(exitError, "%v", err)
		}
		if cmd.Bool("verbose") {
			fmt.Fprintf(r.stdout, "wrote %s\n", f.Path)
		}
	}
	for _, path := range res.Remove {
		if gen.IsGenerated(path) {
			if err := os.Remove(path); err != nil {
				return fail(exitError, "%v", err)
			}
			if cmd.Bool("verbose") {
				fmt.Fprintf(r.stdout, "removed %s\n", path)
			}
		}
	}
	if reuse != nil {
		for _, n := range reuse.Notes {
			fmt.Fprintf(r.stderr, "mcpgen import: note: %s\n", n)
		}
	}
	if cmd.Bool("verbose") {
		for _, fb := range res.Fallbacks {
			fmt.Fprintf(r.stderr, "mcpgen import: note: %s\n", fb)
		}
	}
	fmt.Fprintf(r.stdout, "package %s in %s: %d tools, %d prompts, %d resource templates", pkg, dir, len(snap.Tools), len(snap.Prompts), len(snap.ResourceTemplates))
	if reuse != nil && len(reuse.Tools) > 0 {
		fmt.Fprintf(r.stdout, "; the Go types of %d tool%s reused from %s", len(reuse.Tools), plural(len(reuse.Tools)), snap.GoPackage)
	}
	if n := len(res.Fallbacks); n > 0 {
		fmt.Fprintf(r.stdout, "; %d schema%s as json.RawMessage (-v lists them)", n, plural(n))
	}
	fmt.Fprintln(r.stdout)
	return nil
}

// packageName is -p, else the package clause of the committed file, else the directory's
// name made an identifier.
func packageName(flag, dir string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, importer.CodeFile), nil, parser.PackageClauseOnly); err == nil {
		return f.Name.Name, nil
	}
	abs, _ := filepath.Abs(dir)
	name := strings.ToLower(host.SafeName(filepath.Base(abs)))
	name = strings.NewReplacer("-", "", "_", "").Replace(name)
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return "", fail(exitError, "cannot name a package after %s: give -p NAME", dir)
	}
	return name, nil
}

// isPackagePath says whether mcpgen import's argument names a Go package rather than a
// server of .mcp.json: a relative or absolute directory, or an import path (with a slash).
func isPackagePath(arg string) bool {
	return arg == "." || arg == ".." || strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "../") ||
		filepath.IsAbs(arg) || strings.Contains(arg, "/")
}

// importPackage reads an mcpgen server's package for the client package pkg in dir.
func importPackage(pattern, dir, pkg string) (*gen.ImportSource, error) {
	src, err := gen.ImportPackage(gen.Config{Patterns: []string{pattern}}, dir, pkg)
	if err != nil {
		return nil, fail(exitError, "%v", err)
	}
	return src, nil
}

// checkImport compares what is committed in dir with what it would be, and the committed
// snapshot with the server's (live, when given). A client of an mcpgen server's package is
// regenerated with the package's types as they are now, and compared with its snapshot.
func checkImport(r *reach, dir, pkg string, live *importer.Snapshot, reuse *importer.Reuse) error {
	data, err := os.ReadFile(filepath.Join(dir, importer.SnapshotFile))
	if err != nil {
		return fail(exitError, "%v (run mcpgen import first)", err)
	}
	committed, err := importer.ReadSnapshot(data)
	if err != nil {
		return fail(exitError, "%s: %v", filepath.Join(dir, importer.SnapshotFile), err)
	}
	if committed.GoPackage != "" && reuse == nil {
		src, err := importPackage(committed.GoPackage, dir, pkg)
		if err != nil {
			return err
		}
		reuse = src.Reuse
		if live == nil {
			live = src.Snapshot
		}
	}
	res, err := importer.Generate(committed, importer.Options{Package: pkg, Dir: dir, Reuse: reuse})
	if err != nil {
		return fail(exitError, "%v", err)
	}
	stale := 0
	for _, f := range res.Files {
		old, err := os.ReadFile(f.Path)
		if err != nil && !os.IsNotExist(err) {
			return fail(exitError, "%v", err)
		}
		if bytes.Equal(old, f.Data) {
			continue
		}
		stale++
		fmt.Fprint(r.stdout, udiff.Unified(f.Path, f.Path+" (generated)", string(old), string(f.Data)))
		fmt.Fprintf(r.stderr, "mcpgen import: %s is stale or missing\n", f.Path)
	}
	for _, path := range res.Remove {
		if gen.IsGenerated(path) {
			stale++
			fmt.Fprintf(r.stderr, "mcpgen import: %s is left from an earlier generation\n", path)
		}
	}
	breaking := false
	if live != nil {
		changes := importer.Compare(committed, live)
		for _, c := range changes {
			fmt.Fprintln(r.stdout, c)
		}
		breaking = importer.Breaking(changes)
		switch {
		case breaking:
			fmt.Fprintf(r.stderr, "mcpgen import: the server changed in ways that break callers of %s; regenerate on purpose with mcpgen import and fix the callers\n", dir)
		case len(changes) > 0:
			fmt.Fprintf(r.stderr, "mcpgen import: note: the server changed compatibly since %s was generated; mcpgen import takes the changes in\n", dir)
		}
	}
	if stale > 0 || breaking {
		return &failure{code: exitToolError} // the command has said why
	}
	return nil
}

// everythingClient declares every capability a client can have, so that the server lists
// all it offers: servers may list some tools only to clients that can answer sampling or
// elicitation requests, or offer roots. Listing makes no such requests; one that comes is
// refused. The root offered is the working directory.
func everythingClient() mcp.ClientOptions {
	refuse := errors.New("mcpgen import only lists what the server offers")
	cwd, _ := os.Getwd()
	return mcp.ClientOptions{
		Sampling:    func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) { return nil, refuse },
		Elicitation: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, refuse },
		Roots:       []mcp.Root{fileRoot(cwd)},
	}
}
