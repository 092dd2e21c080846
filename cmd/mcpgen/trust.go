package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/mcpgen/mcpgen/internal/userfile"
	"github.com/mcpgen/mcpgen/runtime/host"
	"github.com/urfave/cli/v3"
)

// mcpgen trust: the approvals of projects' configurations (host.Approvals), listed and
// forgotten from the terminal, where they were given.

func trustCommand(code *int, stdout, stderr io.Writer, usage cli.OnUsageErrorFunc) *cli.Command {
	return &cli.Command{
		Name:  "trust",
		Usage: "list or forget your approvals of projects' configurations",
		Description: "A project's configuration starts its servers once you approved its content, at a\n" +
			"terminal (servers, tools, call, read, prompt and import ask). The approvals are kept in\n" +
			approvalsName() + ", by file and content.\n\n" +
			"With no flag, or --list, prints each approved file with when it was approved, the\n" +
			"variables its urls and headers may send, and whether it is still as approved\n" +
			"(\"changed\": its servers ask again; \"missing\": the file is gone). --forget FILE\n" +
			"removes the approval of FILE, and --forget-all every approval: their servers ask\n" +
			"again before they start.\n\n" +
			"Exit status: 0 on success, 2 when FILE has no approval, for usage errors, and when the\n" +
			"approvals cannot be read or written.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "list", Usage: "print the approvals (the default)"},
			&cli.StringFlag{Name: "forget", Usage: "forget the approval of the configuration `FILE` (such as ./.mcp.json)"},
			&cli.BoolFlag{Name: "forget-all", Usage: "forget every approval"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			*code = exitOK
			if err := runTrust(cmd, stdout); err != nil {
				*code = exitError
				fmt.Fprintf(stderr, "mcpgen trust: %v\n", err)
				var ue usageError
				if errors.As(err, &ue) {
					fmt.Fprintln(stderr, "Run 'mcpgen trust --help' for usage.")
				}
			}
			return nil
		},
		OnUsageError: usage,
	}
}

// approvalsName is where the approvals are, as the help says it.
func approvalsName() string {
	a, err := host.DefaultApprovals()
	if err != nil {
		return "approvals.json in mcpgen's directory of your configuration directory"
	}
	if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(a.Path, home+string(filepath.Separator)) {
		return "~" + a.Path[len(home):]
	}
	return a.Path
}

func runTrust(cmd *cli.Command, stdout io.Writer) error {
	forget, all, list := cmd.String("forget"), cmd.Bool("forget-all"), cmd.Bool("list")
	switch {
	case cmd.Args().Len() > 0:
		return usageError{fmt.Errorf("trust takes no arguments (the file to forget goes with --forget): %q", cmd.Args().Slice())}
	case btoi(forget != "")+btoi(all)+btoi(list) > 1:
		return usageError{errors.New("give one of --list, --forget FILE and --forget-all")}
	}
	approvals, err := host.DefaultApprovals()
	if err != nil {
		return fmt.Errorf("no configuration directory to keep approvals in: %w", err)
	}
	switch {
	case all:
		n, err := approvals.List()
		if err != nil {
			return err
		}
		if err := approvals.ForgetAll(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "forgot %d approval%s\n", len(n), plural(len(n)))
		return nil
	case forget != "":
		path, err := filepath.Abs(forget)
		if err != nil {
			return err
		}
		recorded, err := approvals.List()
		if err != nil {
			return err
		}
		for _, a := range recorded {
			if a.File == path {
				if err := approvals.Forget(path); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "forgot the approval of %s: its servers ask again before they start\n", shownPath(path))
				return nil
			}
		}
		return fmt.Errorf("%s has no approval to forget ('mcpgen trust' lists them)", shownPath(path))
	}
	recorded, err := approvals.List()
	if err != nil {
		return err
	}
	if len(recorded) == 0 {
		fmt.Fprintln(stdout, "no project's configuration is approved")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tAPPROVED\tALLOWS\tNOW")
	for _, a := range recorded {
		allows := "-"
		if len(a.AllowEnv) > 0 {
			allows = shownPath(strings.Join(a.AllowEnv, ","))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", shownPath(a.File), a.Time.UTC().Format("2006-01-02 15:04 UTC"), allows, approvalState(a))
	}
	return tw.Flush()
}

// approvalState says whether an approved file is still as approved.
func approvalState(a host.Approval) string {
	data, err := userfile.ReadFile(a.File)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "missing"
	case err != nil:
		return "unreadable: " + shownPath(err.Error())
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != a.SHA256 {
		return "changed"
	}
	return "as approved"
}

// shownPath is s as a line of a table may show it: quoted, with escapes, if it holds
// anything but printable characters and spaces (a path is a repository's to choose).
func shownPath(s string) string {
	for _, c := range s {
		if !unicode.IsGraphic(c) || (unicode.IsSpace(c) && c != ' ') {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
