package main

// The commands a person uses to reach servers: servers, tools, call, read, prompt. They
// read .mcp.json (or take one server from --stdio, --url, --sse or --ws), connect through a host,
// and print for a person, or JSON with --json.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/termtext"
	"github.com/mcpgen/mcpgen/runtime/host"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcp/ws"
	"github.com/mcpgen/mcpgen/runtime/oauth"
	"github.com/urfave/cli/v3"
)

// Exit codes of the commands that reach servers (exitOK and exitError as for generate).
const exitToolError = 1 // the tool answered with isError; servers, tools: a server failed

// failure is an error with the exit code it means.
type failure struct {
	code int
	err  error
}

func (f *failure) Error() string { return f.err.Error() }

func fail(code int, format string, args ...any) error {
	return &failure{code, fmt.Errorf(format, args...)}
}

// reachFlags are the flags of every command that reaches servers.
func reachFlags(extra ...cli.Flag) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "read the servers from `FILE` (default: .mcp.json in the current directory, else your own " + userConfigName() + ")"},
		&cli.BoolFlag{Name: "trust", Usage: "start the servers of a project's configuration this once without asking (as in CI); nothing is recorded"},
		&cli.StringSliceFlag{Name: "allow-env", Sources: cli.EnvVars("MCPGEN_ALLOW_ENV"), Usage: "let the urls and headers of a project's configuration send the environment variable `NAME` (comma-separated, or repeated)"},
		&cli.StringFlag{Name: "stdio", Usage: "instead of a configuration, run one server: `'COMMAND ARGS...'`, split as a shell would"},
		&cli.StringFlag{Name: "url", Usage: "instead of a configuration, reach one server over Streamable HTTP at `URL`"},
		&cli.StringFlag{Name: "sse", Usage: "instead of a configuration, reach one server over HTTP+SSE (2024-11-05) at `URL`"},
		&cli.StringFlag{Name: "ws", Usage: "instead of a configuration, reach one server over WebSocket at `URL` (ws:// or wss://)"},
		&cli.StringSliceFlag{Name: "header", Aliases: []string{"H"}, Usage: "add `'Name: value'` to every request to --url, --sse or --ws"},
		&cli.StringFlag{Name: "name", Usage: "the `name` of the one server of --stdio, --url, --sse or --ws (default: from the command or host)"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "bound each request to a server by `DURATION`"},
		&cli.DurationFlag{Name: "connect-timeout", Value: 30 * time.Second, Usage: "bound the connection to each server by `DURATION`, counted from its turn to start (a few stdio servers start at a time)"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show what servers write to stderr, and the host's events"},
		&cli.BoolFlag{Name: "trace", Usage: "print every message exchanged with the servers on stderr as it goes: when, which way, what, its size, and each response's round trip"},
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "ask servers for their log messages at `LEVEL` and above (debug, info, notice, warning, error...), printed on stderr; off for none"},
		&cli.StringFlag{Name: "client-id", Sources: cli.EnvVars("MCPGEN_CLIENT_ID"), Usage: "for servers that need OAuth: the `ID` of a client registered with the authorization server --client-issuer, for the server of --url, --sse or --ws, or those of --client-resource (default: register dynamically)"},
		&cli.StringFlag{Name: "client-secret", Sources: cli.EnvVars("MCPGEN_CLIENT_SECRET"), Usage: "the `SECRET` of --client-id, for a confidential client"},
		&cli.StringFlag{Name: "client-issuer", Sources: cli.EnvVars("MCPGEN_CLIENT_ISSUER"), Usage: "the authorization server (issuer `URL`) --client-id is registered with: its id and secret go to that server only, and only for tokens for the servers the client is for; other servers get a client registered dynamically"},
		&cli.StringSliceFlag{Name: "client-resource", Sources: cli.EnvVars("MCPGEN_CLIENT_RESOURCE"), Usage: "a server (its `URL`, or an origin for all of its servers) --client-id is for; required with a configuration file, where it names servers of the file (comma-separated, or repeated)"},
	}, extra...)
}

// askingFlags are reachFlags and askFlags: the flags of a command whose client is the
// person's, who answers what servers ask.
func askingFlags(extra ...cli.Flag) []cli.Flag {
	return reachFlags(append(askFlags(), extra...)...)
}

// approvalHelp says when the servers of a configuration file start.
const approvalHelp = "A project's configuration (any file but your own " + "mcpgen/mcp.json in your configuration\n" +
	"directory) is code: its servers start once you approved the file as it is. At a\n" +
	"terminal mcpgen shows what it would run and asks, and remembers the answer until the\n" +
	"file changes ('mcpgen trust' lists and forgets what you approved); elsewhere --trust\n" +
	"starts them this once. Variables in its urls and headers go to remote servers only if\n" +
	"allowed: at the prompt, or with --allow-env NAME.\n\n"

// reachCommands are servers, tools, call, read and prompt; each sets *code.
func reachCommands(code *int, stdout, stderr io.Writer, usage cli.OnUsageErrorFunc) []*cli.Command {
	action := func(name string, do func(ctx context.Context, r *reach) error) cli.ActionFunc {
		return reachAction(name, do, code, stdout, stderr)
	}
	return []*cli.Command{
		{
			Name:      "servers",
			Usage:     "connect to every configured server and show its state",
			ArgsUsage: "[SERVER...]",
			Description: "Connects to the servers of .mcp.json (or --config, --stdio, --url, --sse, --ws) and prints a\n" +
				"table: name, transport, state, revision, tools, prompts, resources and connect time;\n" +
				"below it, each list a ready server could not give (\"failed\" in its column) and why,\n" +
				"with -v how each revision was chosen, and why each failed server failed, with the last\n" +
				"lines of its stderr. A few stdio servers start at a time (as many as the CPUs, at\n" +
				"least 4); --connect-timeout counts from each one's turn.\n\n" +
				approvalHelp +
				"Exit status: 0 when every server is ready (a list one could not give does not count),\n" +
				"1 when one failed, 2 for usage and configuration errors.",
			Flags:        askingFlags(),
			Action:       action("servers", runServers),
			OnUsageError: usage,
		},
		{
			Name:      "tools",
			Usage:     "list the tools of every server",
			ArgsUsage: "[SERVER...]",
			Description: "Prints each tool's server, name and the first line of its description: the names\n" +
				"mcpgen call SERVER TOOL takes. --json prints the full definitions, with the name a host\n" +
				"gives a model (mcp_{server}_{tool}) and the Anthropic and OpenAI shapes; --schema NAME\n" +
				"one input schema.\n" +
				"They are the tools a server lists to the client call is: some servers list a tool\n" +
				"only to clients that declare sampling or elicitation (--sampling, --elicitation).\n\n" +
				"Exit status: 0 when every server is ready and listed its tools, 1 when one failed or\n" +
				"could not list its tools (the others' tools are still listed), 2 for usage and\n" +
				"configuration errors.",
			Flags: askingFlags(
				&cli.StringFlag{Name: "schema", Usage: "print the input schema of the tool `NAME` (mcp_{server}_{tool}, or the tool's own name)"},
			),
			Action:       action("tools", runTools),
			OnUsageError: usage,
		},
		{
			Name:      "resources",
			Usage:     "list the resources and resource templates of every server",
			ArgsUsage: "[SERVER...]",
			Description: "Prints each resource's server, URI, name and description, then each resource\n" +
				"template's, with its variables; a server that completes them (completion/complete)\n" +
				"gives the first values of each, shown in parentheses. mcpgen read SERVER URI reads\n" +
				"one (a template's URI with its variables filled in). --json prints them all.\n\n" +
				"Exit status: 0 when every server is ready and listed them, 1 when one failed or could\n" +
				"not list them (the others' are still listed), 2 for usage and configuration errors.",
			Flags:        askingFlags(),
			Action:       action("resources", runResources),
			OnUsageError: usage,
		},
		{
			Name:      "prompts",
			Usage:     "list the prompts of every server",
			ArgsUsage: "[SERVER...]",
			Description: "Prints each prompt's server, name, arguments (an optional one marked ?) and\n" +
				"description; a server that completes arguments (completion/complete) gives the\n" +
				"first values of each, shown in parentheses. mcpgen prompt SERVER PROMPT [key=value\n" +
				"...] gets one. --json prints them all.\n\n" +
				"Exit status: 0 when every server is ready and listed them, 1 when one failed or could\n" +
				"not list them (the others' are still listed), 2 for usage and configuration errors.",
			Flags:        askingFlags(),
			Action:       action("prompts", runPrompts),
			OnUsageError: usage,
		},
		{
			Name:      "call",
			Usage:     "call a tool",
			ArgsUsage: "SERVER TOOL [key=value ...]",
			Description: "Arguments are key=value, typed by the tool's input schema (numbers, booleans, JSON for\n" +
				"arrays and objects), or --args JSON, --args @file, --args - (stdin); key=value pairs\n" +
				"override --args. SERVER is left out with --stdio, --url, --sse and --ws.\n\n" +
				"The result is printed once: its text (a line for each other block), or its structured\n" +
				"content as indented JSON when it has no text of its own; --json prints the whole\n" +
				"result. Progress is drawn on stderr when it is a terminal (--progress), and log\n" +
				"messages go to stderr, each on a line of its own.\n\n" +
				"What the server asks of its client is asked at the terminal: a question (elicitation:\n" +
				"a form to fill in, or a URL to open), or a message from a model (sampling: the\n" +
				"conversation and the tools offered are shown; you write the reply, a tool's use, or\n" +
				"decline). Without a terminal neither is declared (--sampling and --elicitation say\n" +
				"otherwise). The roots offered are the current directory, or each --root.\n" +
				"--timeout bounds the call, the time you take to answer included.\n\n" +
				"Exit status: 0 on success, 1 when the tool returned an error (isError) or the call\n" +
				"ended without a result (its sampling request declined), 2 for usage, connection and\n" +
				"protocol errors.",
			Flags: askingFlags(
				&cli.StringFlag{Name: "args", Usage: "the arguments: a `JSON` object, @FILE or - for standard input"},
				&cli.StringFlag{Name: "progress", Value: "auto", Usage: "`WHEN` to draw progress on stderr: auto (when it is a terminal), always or never"},
			),
			Action:       action("call", runCall),
			OnUsageError: usage,
		},
		{
			Name:         "read",
			Usage:        "read a resource",
			ArgsUsage:    "SERVER URI",
			Description:  "Prints text contents as text; binary contents go to stdout as bytes when it is not a\nterminal. --json prints the contents as JSON. Exit status: 0 on success, 2 on errors.",
			Flags:        askingFlags(),
			Action:       action("read", runRead),
			OnUsageError: usage,
		},
		{
			Name:         "prompt",
			Usage:        "get a prompt",
			ArgsUsage:    "SERVER NAME [key=value ...]",
			Description:  "Prints each message as role: text. --json prints the result as JSON. Exit status: 0 on\nsuccess, 2 on errors.",
			Flags:        askingFlags(),
			Action:       action("prompt", runPrompt),
			OnUsageError: usage,
		},
	}
}

// reachAction runs a command that reaches servers and sets *code from its error, printing
// the error as one line (a failure with no words prints nothing: the command said it).
func reachAction(name string, do func(ctx context.Context, r *reach) error, code *int, stdout, stderr io.Writer) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		con := newConsole(stderr)
		if isTerminal(stdout) {
			// What servers return (a tool's text, a resource, a prompt) is shown as text at a
			// terminal, as on stderr; into a pipe or a file it goes as it is.
			tw := termtext.NewWriter(stdout)
			defer tw.Flush()
			stdout = tw
		}
		r := &reach{cmd: cmd, stdout: stdout, stderr: con, console: con, stdin: os.Stdin, lines: newServerLines(con)}
		r.term = newTerminal(r.stdin, con)
		err := do(ctx, r)
		switch {
		case r.host == nil:
		case r.abandoned || ctx.Err() != nil:
			// The person gave up on what the servers do (a call past --timeout): they are
			// not waited for (a server that ignores the cancellation held mcpgen a second or two).
			r.host.CloseNow()
		default:
			r.host.Close()
		}
		r.lines.close() // what the servers said, before what mcpgen says of the outcome
		if r.loopback != nil {
			r.loopback.Close()
		}
		var f *failure
		switch {
		case err == nil:
			*code = exitOK
		case errors.As(err, &f):
			*code = f.code
			if f.err != nil && f.err.Error() != "" {
				fmt.Fprintf(r.stderr, "mcpgen %s: %v\n", name, f.err)
			}
		default:
			*code = exitError
			fmt.Fprintf(r.stderr, "mcpgen %s: %v\n", name, err)
		}
		return nil
	}
}

// reach is one run of a command that reaches servers.
type reach struct {
	cmd            *cli.Command
	stdout, stderr io.Writer // stderr is console
	console        *console
	lines          *serverLines // what the servers say, on stderr
	term           *terminal    // answers what the servers ask
	stdin          *os.File
	host           *host.Host
	single         string // the server of --stdio, --url, --sse or --ws
	loopback       *oauth.Loopback
	abandoned      bool // a request was given up on (its --timeout passed)
}

// args splits the positional arguments into the servers named and the rest: with --stdio,
// --url, --sse or --ws there is one server and no SERVER argument.
func (r *reach) serverAndRest(usage string) (string, []string, error) {
	args := r.cmd.Args().Slice()
	if r.oneServer() {
		return "", args, nil
	}
	if len(args) == 0 {
		return "", nil, fail(exitError, "give the server: mcpgen %s %s", r.cmd.Name, usage)
	}
	return args[0], args[1:], nil
}

func (r *reach) oneServer() bool {
	return r.cmd.String("stdio") != "" || r.cmd.String("url") != "" || r.cmd.String("sse") != "" || r.cmd.String("ws") != ""
}

// connect starts a host of the servers named (all when none are) and waits until each is
// ready or has failed. The host's client is client, or when nil the person's
// (clientOptions). skip names the lists the command does not use: they are not asked for.
func (r *reach) connect(ctx context.Context, names []string, answers *mcp.ClientOptions, skip host.Lists) (*host.Host, error) {
	cfg, err := r.config()
	if err != nil {
		return nil, err
	}
	var client mcp.ClientOptions
	if answers != nil {
		client = *answers
	} else if client, err = r.clientOptions(); err != nil {
		return nil, err
	}
	if r.single != "" {
		names = nil
	}
	if len(names) > 0 {
		var picked []host.ServerConfig
		for _, n := range names {
			i := slices.IndexFunc(cfg.Servers, func(s host.ServerConfig) bool { return s.Name == n })
			if i < 0 {
				return nil, fail(exitError, "no server %q in %s; its servers are %s", n, cfg.File, serverNames(cfg))
			}
			if !slices.ContainsFunc(picked, func(s host.ServerConfig) bool { return s.Name == n }) {
				picked = append(picked, cfg.Servers[i])
			}
		}
		cfg.Servers = picked
	}
	if len(cfg.Servers) == 0 {
		return nil, fail(exitError, "%s configures no servers", cfg.File)
	}
	if err := r.approve(ctx, cfg); err != nil {
		return nil, err
	}
	if len(cfg.Servers) == 1 {
		r.term.server = cfg.Servers[0].Name // the one that asks, if one does
	}
	level := slog.LevelWarn
	if r.cmd.Bool("verbose") {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(r.stderr, &slog.HandlerOptions{Level: level}))
	client.Logger = logger
	httpClient, err := r.oauthClient(cfg)
	if err != nil {
		return nil, fail(exitError, "%v", err)
	}
	opts := &host.Options{
		HTTPClient:     httpClient,
		Transports:     transports,
		Client:         client,
		ConnectTimeout: r.cmd.Duration("connect-timeout"),
		CallTimeout:    r.cmd.Duration("timeout"),
		// A command lasts one request: a server that failed is reported, not retried.
		RestartMin: time.Hour,
		// A server that does not exit when its stdin closes gets SIGTERM after a second.
		ShutdownGrace: time.Second,
		Logger:        logger,
		Events:        r.event,
		Skip:          skip,
	}
	if r.cmd.Bool("trace") {
		opts.Trace = newFlightRecorder(r.stderr).record
	}
	if failed, err := r.nameByServer(ctx, cfg, opts); err != nil || failed != nil {
		r.host = failed
		return failed, err
	}
	r.host = host.Start(cfg, opts)
	if err := r.host.Ready(ctx); err != nil {
		return nil, fail(exitError, "%v", err)
	}
	return r.host, nil
}

// nameByServer names the one server of --url, --sse or --ws, when --name does not, by the
// name it gives itself (serverInfo.name, made safe for tool names): the URL's host says
// little (127_0_0_1). It asks the server in a connection of its own, which lists nothing.
// A server that cannot be reached keeps the host's name, and failed is the host that says
// why: there is no point in trying again.
func (r *reach) nameByServer(ctx context.Context, cfg *host.Config, opts *host.Options) (failed *host.Host, err error) {
	if r.single == "" || r.cmd.String("name") != "" || cfg.Servers[0].Transport == host.Stdio {
		return nil, nil
	}
	probe := *opts
	probe.Events, probe.Trace, probe.Skip = nil, nil, host.Lists{Tools: true, Prompts: true, Resources: true}
	h := host.Start(cfg, &probe)
	if err := h.Ready(ctx); err != nil {
		h.Close()
		return nil, fail(exitError, "%v", err)
	}
	st, _ := h.Server(r.single)
	if st.State != host.Ready {
		return h, nil
	}
	h.Close()
	if name := host.SafeName(st.Info.Name); name != "" {
		cfg.Servers[0].Name, r.single, r.term.server = name, name, name
	}
	return nil, nil
}

// event prints what a person asked to see: log messages always, the rest with -v. The
// host's events come on the goroutines that read the servers: they are queued (or dropped
// and counted), never waited on.
func (r *reach) event(e host.Event) {
	switch {
	case e.Kind == host.EventLog:
		r.lines.add(e.Server, "log messages", fmt.Sprintf("[%s] %s: %s\n", e.Server, termtext.Line(string(e.Log.Level)), indented(logText(e.Log))))
	case r.cmd.Bool("verbose"):
		kind := "events"
		if e.Kind == host.EventStderr {
			kind = "lines of its stderr"
		}
		r.lines.add(e.Server, kind, e.String()+"\n")
	}
}

// indented is a server's text of several lines as mcpgen shows it in a line of its own: its
// later lines indented, so that none passes for a line of mcpgen's.
func indented(s string) string {
	return strings.ReplaceAll(strings.TrimRight(termtext.Text(s), "\n"), "\n", "\n    ")
}

// logText is a log message's data: a string as itself, anything else as JSON.
func logText(m *mcp.LogMessage) string {
	s := string(m.Data)
	if len(s) > 1 && s[0] == '"' {
		var text string
		if err := json.Unmarshal(m.Data, &text); err == nil {
			s = text
		}
	}
	if m.Logger != "" {
		s = m.Logger + ": " + s
	}
	return s
}

// transports are the transports the host does not have itself: WebSocket.
var transports = map[string]host.TransportFunc{
	host.WS: func(sc host.ServerConfig, hc *http.Client) (mcp.Transport, error) {
		return &ws.Transport{URL: sc.URL, Header: sc.Header(), HTTPClient: hc}, nil
	},
}

// connectOne connects to one server: server of the configuration, or the one of --stdio,
// --url, --sse or --ws when server is "". It returns the server's name once it is ready.
func (r *reach) connectOne(ctx context.Context, server string, client *mcp.ClientOptions, skip host.Lists) (string, *host.Host, error) {
	h, err := r.connect(ctx, []string{server}, client, skip)
	if err != nil {
		return "", nil, err
	}
	if server == "" {
		server = r.single
	}
	if err := r.ready(ctx, server); err != nil {
		return "", nil, err
	}
	return server, h, nil
}

// ready checks that a server is ready, and asks it for its log messages at --log-level.
func (r *reach) ready(ctx context.Context, name string) error {
	st, ok := r.host.Server(name)
	if !ok {
		return fail(exitError, "no server %q", name)
	}
	if st.State != host.Ready {
		return fail(exitError, "%s", failedServer(st))
	}
	level := r.cmd.String("log-level")
	if level == "off" || !st.Info.Capabilities.Logging {
		return nil
	}
	if !slices.Contains([]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}, level) {
		return fail(exitError, "--log-level %q: give debug, info, notice, warning, error, critical, alert, emergency or off", level)
	}
	c, err := r.host.Client(name)
	if err == nil {
		err = c.SetLogLevel(ctx, mcp.LogLevel(level))
	}
	if err != nil {
		return fail(exitError, "logging/setLevel: %v", err)
	}
	return nil
}

// failedServer says why a server is not ready, with the last lines of its stderr, which
// are the server's text.
func failedServer(st host.ServerStatus) string {
	s := fmt.Sprintf("server %s %s", termtext.Line(st.Name), st.State)
	if st.Err != nil {
		s += ": " + indented(st.Err.Error())
	}
	if errors.Is(st.Err, host.ErrConnectTimeout) {
		s += "; a server that starts slowly may need a longer --connect-timeout"
	}
	if n := len(st.Stderr); n > 0 && (st.Err == nil || !strings.Contains(st.Err.Error(), st.Stderr[n-1])) {
		s += "\n  its stderr ended:"
		for _, line := range st.Stderr[max(0, n-5):] {
			s += "\n    " + termtext.Line(line)
		}
	}
	return s
}
