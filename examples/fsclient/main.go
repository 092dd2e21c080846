// Command fsclient calls npm's @modelcontextprotocol/server-filesystem through a typed client
// that mcpgen import generated from the server's schemas (package filesystem, beside this
// file): the arguments are structs, the results are structs, and a mistyped name or a
// changed schema is a compile error, not a surprise at run time.
//
//	go run ./examples/fsclient [-server 'COMMAND ARGS'] DIR
//
// The server runs with DIR as its only allowed directory; the program lists DIR and prints
// the first file's head.
package main

//go:generate go tool mcpgen import --stdio "npx -y @modelcontextprotocol/server-filesystem@2026.8.31 ." -o filesystem

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mcpgen/mcpgen/examples/fsclient/filesystem"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

func main() {
	server := flag.String("server", "npx -y @modelcontextprotocol/server-filesystem@2026.8.31", "the server's command; DIR is added as its last argument")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: fsclient [-server 'COMMAND ARGS'] DIR")
		os.Exit(2)
	}
	if err := run(context.Background(), strings.Fields(*server), flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "fsclient:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, server []string, dir string) error {
	mc, err := mcp.Connect(ctx, &mcp.CommandTransport{Command: server[0], Args: append(server[1:], dir)}, nil)
	if err != nil {
		return err
	}
	defer mc.Close()
	fs := filesystem.New(mc)

	// list_directory_with_sizes: typed arguments, a typed result.
	listing, err := fs.ListDirectoryWithSizes(ctx, filesystem.ListDirectoryWithSizesInput{
		Path:   dir,
		SortBy: mcp.Ptr(filesystem.ListDirectoryWithSizesInputSortByName),
	})
	if err != nil {
		return err
	}
	fmt.Println(listing.Content)

	// read_text_file of the first file, its first two lines.
	var first string
	for _, line := range strings.Split(listing.Content, "\n") {
		if name, ok := strings.CutPrefix(line, "[FILE] "); ok {
			first = strings.Fields(name)[0]
			break
		}
	}
	if first == "" {
		return nil
	}
	file, err := fs.ReadTextFile(ctx, filesystem.ReadTextFileInput{Path: dir + "/" + first, Head: mcp.Ptr(2.0)})
	if err != nil {
		return err // a *mcp.ToolError when the server refuses, with its words
	}
	fmt.Printf("--- %s, first lines:\n%s\n", first, file.Content)
	return nil
}
