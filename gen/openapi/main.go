package openapi

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// CatalogThreshold is the most operations a generated server serves as a tool each unless
// told otherwise (--tools): past it, three tools list, describe and call them.
const CatalogThreshold = 100

// mainFile writes the server program: flags for the API's address and credentials (each
// also read from the environment, which --help names), then the tools over stdio or
// Streamable HTTP.
func (g *writer) mainFile() *jen.File {
	f := jen.NewFile(g.opts.Package)
	g.header(f)
	f.ImportName(mcpPkg, "mcp")
	f.ImportName(httpapiPkg, "httpapi")
	name := g.opts.ServerName
	prefix := strings.ToUpper(envWord(g.opts.EnvPrefix))
	f.Comment("ServerName is the name the server gives itself.")
	f.Const().Id("ServerName").Op("=").Lit(name)
	f.Comment("CatalogThreshold is the most operations --tools auto serves a tool each: past it, a model is better served by a catalog of three tools.")
	f.Const().Id("CatalogThreshold").Op("=").Lit(CatalogThreshold)

	var creds []jen.Code
	for _, s := range g.schemes {
		usage := fmt.Sprintf("credential of security scheme %s (%s); default: $%s", s.Name, schemeWhat(s), g.envs[s.Name])
		creds = append(creds, jen.Lit(s.Name).Op(":").Qual("flag", "String").Call(jen.Lit(g.flags[s.Name]), jen.Lit(""), jen.Lit(usage)))
	}
	body := []jen.Code{
		jen.Id("httpAddr").Op(":=").Qual("flag", "String").Call(jen.Lit("http"), jen.Lit(""), jen.Lit("serve Streamable HTTP at http://`host:port`/mcp instead of stdio (port 0 picks a free one)")),
		jen.Id("baseURL").Op(":=").Qual("flag", "String").Call(jen.Lit("base-url"), jen.Lit(""), jen.Lit("the API's base `URL`; default: $"+prefix+"_BASE_URL, else DefaultBaseURL ("+g.defaultServer()+")")),
		jen.Id("maxResult").Op(":=").Qual("flag", "Int").Call(jen.Lit("max-result-bytes"), jen.Qual(httpapiPkg, "DefaultMaxResultBytes"), jen.Lit("cut a list result past this many bytes of JSON, saying so in the result")),
		jen.Id("mode").Op(":=").Qual("flag", "String").Call(jen.Lit("tools"), jen.Lit("auto"), jen.Lit(fmt.Sprintf("`all`: a tool per operation; catalog: three tools that list, describe and call them; auto: all up to %d operations, else catalog", CatalogThreshold))),
		jen.Var().Id("headers").Id("headerFlag"),
		jen.Qual("flag", "Var").Call(jen.Op("&").Id("headers"), jen.Lit("header"), jen.Lit("add `Name: value` to every request to the API (repeatable): a token the document names no scheme for")),
		jen.Id("creds").Op(":=").Map(jen.String()).Op("*").String().Values(creds...),
		jen.Qual("flag", "Parse").Call(),
		jen.If(jen.Qual("flag", "NArg").Call().Op(">").Lit(0)).Block(
			jen.Qual("fmt", "Fprintf").Call(jen.Qual("os", "Stderr"), jen.Lit(name+": unexpected argument %q\n"), jen.Qual("flag", "Arg").Call(jen.Lit(0))),
			jen.Qual("flag", "Usage").Call(),
			jen.Qual("os", "Exit").Call(jen.Lit(2)),
		),
		jen.If(jen.Op("*").Id("baseURL").Op("==").Lit("")).Block(jen.Op("*").Id("baseURL").Op("=").Qual("os", "Getenv").Call(jen.Lit(prefix + "_BASE_URL"))),
		jen.Id("client").Op(":=").Id("NewClient").Call(jen.Op("*").Id("baseURL")),
		jen.For(jen.List(jen.Id("name"), jen.Id("v")).Op(":=").Range().Id("creds")).Block(
			jen.If(jen.Op("*").Id("v").Op("!=").Lit("")).Block(jen.Id("client").Dot("Credentials").Index(jen.Id("name")).Op("=").Op("*").Id("v"))),
		jen.Id("client").Dot("Header").Op("=").Id("headers").Dot("h"),
		jen.Id("client").Dot("MaxResultBytes").Op("=").Op("*").Id("maxResult"),
		jen.List(jen.Id("ctx"), jen.Id("stop")).Op(":=").Qual("os/signal", "NotifyContext").Call(jen.Qual("context", "Background").Call(), jen.Qual("os", "Interrupt"), jen.Qual("syscall", "SIGTERM")),
		jen.Defer().Id("stop").Call(),
		jen.Id("srv").Op(":=").Qual(mcpPkg, "NewServer").Call(jen.Qual(mcpPkg, "Implementation").Values(jen.Dict{
			jen.Id("Name"): jen.Id("ServerName"), jen.Id("Title"): jen.Lit(g.doc.Title), jen.Id("Version"): jen.Lit(g.doc.APIVersion)}), jen.Nil()),
		jen.Id("tools").Op(":=").Id("Tools").Values(jen.Dict{jen.Id("API"): jen.Id("client")}),
		jen.If(jen.Op("*").Id("mode").Op("==").Lit("auto")).Block(
			jen.Op("*").Id("mode").Op("=").Lit("all"),
			jen.If(jen.Len(jen.Id("Operations")).Op(">").Id("CatalogThreshold")).Block(jen.Op("*").Id("mode").Op("=").Lit("catalog"))),
		jen.Switch(jen.Op("*").Id("mode")).Block(
			jen.Case(jen.Lit("all")).Block(jen.Id("RegisterMCP").Call(jen.Id("srv"), jen.Id("tools"))),
			jen.Case(jen.Lit("catalog")).Block(
				jen.Id("inner").Op(":=").Qual(mcpPkg, "NewServer").Call(jen.Qual(mcpPkg, "Implementation").Values(jen.Dict{jen.Id("Name"): jen.Id("ServerName"), jen.Id("Version"): jen.Lit(g.doc.APIVersion)}), jen.Nil()),
				jen.Id("RegisterMCP").Call(jen.Id("inner"), jen.Id("tools")),
				jen.List(jen.Id("cat"), jen.Id("cerr")).Op(":=").Qual(catalogPkg, "Register").Call(jen.Id("ctx"), jen.Id("srv"), jen.Id("inner"), jen.Qual(catalogPkg, "Options").Values(jen.Dict{jen.Id("Tags"): jen.Id("OperationTags")})),
				jen.If(jen.Id("cerr").Op("!=").Nil()).Block(
					jen.Qual("fmt", "Fprintln").Call(jen.Qual("os", "Stderr"), jen.Lit(name+":"), jen.Id("cerr")),
					jen.Qual("os", "Exit").Call(jen.Lit(1))),
				jen.Defer().Id("cat").Dot("Close").Call(),
				jen.Qual("fmt", "Fprintf").Call(jen.Qual("os", "Stderr"), jen.Lit(name+": %d operations, served through %s, %s and %s (--tools all serves a tool per operation)\n"), jen.Len(jen.Id("Operations")), jen.Qual(catalogPkg, "ListTool"), jen.Qual(catalogPkg, "DescribeTool"), jen.Qual(catalogPkg, "CallTool")),
			),
			jen.Default().Block(
				jen.Qual("fmt", "Fprintf").Call(jen.Qual("os", "Stderr"), jen.Lit(name+": --tools %q: want all, catalog or auto\n"), jen.Op("*").Id("mode")),
				jen.Qual("os", "Exit").Call(jen.Lit(2))),
		),
		jen.Var().Err().Error(),
		jen.If(jen.Op("*").Id("httpAddr").Op("==").Lit("")).Block(
			jen.Err().Op("=").Id("srv").Dot("ServeStdio").Call(jen.Id("ctx")),
		).Else().Block(
			jen.List(jen.Id("ln"), jen.Id("lerr")).Op(":=").Qual("net", "Listen").Call(jen.Lit("tcp"), jen.Op("*").Id("httpAddr")),
			jen.If(jen.Id("lerr").Op("!=").Nil()).Block(
				jen.Qual("fmt", "Fprintln").Call(jen.Qual("os", "Stderr"), jen.Lit(name+":"), jen.Id("lerr")),
				jen.Qual("os", "Exit").Call(jen.Lit(1))),
			jen.Qual("fmt", "Fprintf").Call(jen.Qual("os", "Stderr"), jen.Lit("serving MCP at %s\n"), jen.Qual(mcpPkg, "LocalURL").Call(jen.Id("ln").Dot("Addr").Call(), jen.Lit("/mcp"))),
			jen.Err().Op("=").Id("srv").Dot("ServeHTTPListener").Call(jen.Id("ctx"), jen.Id("ln"), jen.Nil()),
		),
		jen.If(jen.Err().Op("!=").Nil().Op("&&").Op("!").Qual("errors", "Is").Call(jen.Err(), jen.Qual("context", "Canceled"))).Block(
			jen.Qual("fmt", "Fprintln").Call(jen.Qual("os", "Stderr"), jen.Lit(name+":"), jen.Err()),
			jen.Qual("os", "Exit").Call(jen.Lit(1))),
	}
	f.Comment(fmt.Sprintf("Command %s serves %s as MCP tools, calling it over HTTP: over stdio, or Streamable HTTP with --http. Credentials come from flags or the environment (--help names them), never from a tool's arguments.", name, orThe(g.doc.Title)))
	f.Func().Id("main").Params().Block(body...)

	f.Comment("headerFlag collects --header values.")
	f.Type().Id("headerFlag").Struct(jen.Id("h").Qual("net/http", "Header"))
	f.Func().Params(jen.Id("f").Op("*").Id("headerFlag")).Id("String").Params().String().Block(jen.Return(jen.Lit("")))
	f.Func().Params(jen.Id("f").Op("*").Id("headerFlag")).Id("Set").Params(jen.Id("v").String()).Error().Block(
		jen.List(jen.Id("name"), jen.Id("value"), jen.Id("ok")).Op(":=").Qual("strings", "Cut").Call(jen.Id("v"), jen.Lit(":")),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Qual("errors", "New").Call(jen.Lit("want Name: value")))),
		jen.If(jen.Id("f").Dot("h").Op("==").Nil()).Block(jen.Id("f").Dot("h").Op("=").Qual("net/http", "Header").Values()),
		jen.Id("f").Dot("h").Dot("Add").Call(jen.Qual("strings", "TrimSpace").Call(jen.Id("name")), jen.Qual("strings", "TrimSpace").Call(jen.Id("value"))),
		jen.Return(jen.Nil()),
	)
	return f
}

func (g *writer) defaultServer() string {
	if len(g.doc.Servers) == 0 || g.doc.Servers[0] == "" {
		return "none: the document names no server"
	}
	return g.doc.Servers[0]
}

func orThe(title string) string {
	if title == "" {
		return "the API"
	}
	return title
}

func schemeWhat(s *SecurityScheme) string {
	switch s.Type {
	case "apiKey":
		return "an API key, sent in the " + s.In + " " + s.ParamName
	case "http":
		if s.Scheme == "basic" {
			return "user:password"
		}
		return "a " + s.Scheme + " token"
	case "oauth2":
		if s.TokenURL != "" {
			return "client_id:client_secret for the client credentials grant"
		}
		return "an OAuth 2.0 access token"
	}
	return "an access token"
}
