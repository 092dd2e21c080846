package main

// What the reaching commands declare to servers, and how they answer what servers ask: the
// client declares only what it can answer. Sampling and elicitation are asked of the person
// at the terminal, so they are declared only when there is one (or as --sampling and
// --elicitation say); the roots are the current directory (or --root's).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/urfave/cli/v3"
)

// askFlags are the flags that say what the client declares and how it answers.
func askFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "sampling", Value: "auto", Usage: "answer a server's requests for a model's message as `MODE` says: terminal (you write it), decline (each is declined), off (sampling is not declared), or auto: terminal when stdin and stderr are a terminal, else off"},
		&cli.StringFlag{Name: "elicitation", Value: "auto", Usage: "answer a server's questions (forms, URLs to open) as `MODE` says: terminal, decline, off or auto, as for --sampling"},
		&cli.StringSliceFlag{Name: "root", Usage: "offer the directory `DIR` to servers as a root (repeated; default: the current directory)"},
	}
}

// clientOptions are the client's capabilities and answers: the same for every command, so
// that servers list the same tools to tools as to call (some list a tool only to clients
// that declare sampling or elicitation).
func (r *reach) clientOptions() (mcp.ClientOptions, error) {
	var o mcp.ClientOptions
	sampling, err := r.askMode("sampling")
	if err != nil {
		return o, err
	}
	switch sampling {
	case "terminal":
		o.Sampling, o.SamplingTools = r.term.sample, true
	case "decline":
		o.Sampling, o.SamplingTools = r.term.declineSampling, true
	}
	elicitation, err := r.askMode("elicitation")
	if err != nil {
		return o, err
	}
	switch elicitation {
	case "terminal":
		o.Elicitation, o.ElicitationURL = r.term.elicit, true
	case "decline":
		o.Elicitation, o.ElicitationURL = r.term.declineElicitation, true
	}
	o.Roots, err = roots(r.cmd.StringSlice("root"))
	return o, err
}

// askMode is how --sampling or --elicitation says to answer: terminal, decline or off.
func (r *reach) askMode(flag string) (string, error) {
	switch mode := r.cmd.String(flag); mode {
	case "auto":
		if r.term.tty {
			return "terminal", nil
		}
		return "off", nil
	case "terminal":
		if !r.term.tty {
			return "", fail(exitError, "--%s terminal: stdin and stderr are not a terminal, so there is nobody to ask; give decline or off", flag)
		}
		return mode, nil
	case "decline", "off":
		return mode, nil
	default:
		return "", fail(exitError, "--%s %q: give terminal, decline, off or auto", flag, mode)
	}
}

// roots are the directories offered to servers: dirs, or the current directory.
func roots(dirs []string) ([]mcp.Root, error) {
	if len(dirs) == 0 {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, fail(exitError, "the current directory, offered as a root: %v", err)
		}
		return []mcp.Root{fileRoot(cwd)}, nil
	}
	var list []mcp.Root
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err == nil {
			var fi os.FileInfo
			if fi, err = os.Stat(abs); err == nil && !fi.IsDir() {
				err = fmt.Errorf("not a directory")
			}
		}
		if err != nil {
			return nil, fail(exitError, "--root %s: %v", d, err)
		}
		list = append(list, fileRoot(abs))
	}
	return list, nil
}

// fileRoot is the root of a directory: its file:// URI, named by its base name.
func fileRoot(dir string) mcp.Root {
	return mcp.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String(), Name: filepath.Base(dir)}
}

// declineSampling declines a request for a model's message (--sampling decline), with a
// note.
func (t *terminal) declineSampling(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	fmt.Fprintf(t.out, "mcpgen: %s asked for a message from a model (sampling); declined (--sampling decline)\n", t.who())
	return nil, errSamplingDeclined
}

// declineElicitation declines a question (--elicitation decline), with a note.
func (t *terminal) declineElicitation(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	fmt.Fprintf(t.out, "mcpgen: %s asked %q; declined (--elicitation decline)\n", t.who(), req.Message)
	return &mcp.ElicitResult{Action: mcp.Decline}, nil
}

// requestFailed is the failure of a request to a server, with a hint when the server
// needed a capability the person can give: one of the stateless revision (2026-07-28)
// refuses a request whose client did not declare what the tool asks of it.
func requestFailed(err error) error {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeMissingRequiredClientCapability {
		return fail(exitError, "%v", err)
	}
	var data struct {
		Required map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	json.Unmarshal(rpc.Data, &data)
	var hints []string
	for _, c := range []string{"sampling", "elicitation"} {
		if _, ok := data.Required[c]; ok {
			hints = append(hints, fmt.Sprintf("mcpgen declares %s when it can ask you at a terminal, or with --%s decline (to decline)", c, c))
		}
	}
	if len(hints) == 0 {
		return fail(exitError, "%v", err)
	}
	return fail(exitError, "%v\n  %s", err, strings.Join(hints, "\n  "))
}
