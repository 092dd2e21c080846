package importer

import (
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// The Client's methods: one per tool, prompt and resource template.

func (e *emitter) toolMethod(t *tool) {
	f := e.file
	ctx := jen.Id("ctx").Qual("context", "Context")
	params := []jen.Code{ctx}
	var args jen.Code = jen.Nil()
	var pre []jen.Code
	// Arguments the generated code encodes go as they are, json.RawMessage.
	encoded := func(write ...jen.Code) {
		pre = append(append([]jen.Code{jen.Var().Id("e").Qual(jsonwirePkg, "Encoder")}, write...),
			jen.If(jen.Err().Op(":=").Id("e").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("tools/call "+t.Name+": arguments: %w"), jen.Err()))))
		args = jen.Qual("encoding/json", "RawMessage").Call(jen.Id("e").Dot("Bytes").Call())
	}
	switch {
	case t.reuse.In != nil:
		params = append(params, jen.Id("in").Add(t.reuse.In))
		encoded(jen.Id(t.reuse.Encode).Call(jen.Op("&").Id("e"), jen.Op("&").Id("in")))
	case t.in == nil:
	case t.inRaw:
		params = append(params, jen.Id("in").Add(goTypeOf(t.in)))
		args = jen.Id("in")
		if t.in.kind != kRaw {
			// The codecs take a *jsonwire.Encoder named e.
			encoded(jen.Block(append([]jen.Code{jen.Id("e").Op(":=").Op("&").Id("e")}, encodeValue(jen.Id("in"), t.in, 0)...)...))
		}
	default:
		params = append(params, jen.Id("in").Id(t.in.name))
		encoded(jen.Id("in").Dot("encode").Call(jen.Op("&").Id("e")))
	}
	doc := t.method + " calls the tool " + t.Name
	if t.Title != "" {
		doc += " (" + t.Title + ")"
	}
	if d := strings.TrimSpace(t.Description); d != "" {
		doc += ": " + d
	} else {
		doc += "."
	}
	doc += "\n\n"
	for _, raw := range []struct {
		t    *goType
		what string
	}{{t.in, "Its arguments are"}, {t.out, "Its result is"}} {
		if raw.t != nil && raw.t.kind == kRaw && raw.t.why != "" {
			doc += raw.what + " json.RawMessage: " + raw.t.why + ". "
		}
	}
	if t.out == nil && t.reuse.Out == nil {
		doc += "The tool declares no output schema: the result is its content blocks (mcp.TextOf gives their text). "
	}
	doc += "A result the tool marked as an error is returned as a *mcp.ToolError with its text."
	f.Add(comment(doc))

	call := []jen.Code{
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot("MCP").Dot("CallTool").Call(jen.Id("ctx"), jen.Lit(t.Name), args),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.If(jen.Err().Op(":=").Id("res").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
	}
	// The result: the content blocks, or a value decoded from structuredContent. A struct
	// (generated, or the server's own) comes back as a pointer, as does any value that cannot be
	// nil; a map, an interface or json.RawMessage (an output schema that is not an object of
	// properties) as it is.
	var result jen.Code
	out := jen.Id("out")
	var declare jen.Code
	var decode []jen.Code
	switch {
	case t.reuse.Out != nil:
		result, declare = jen.Op("*").Add(t.reuse.Out), out.Clone().Op(":=").New(t.reuse.Out)
		decode = []jen.Code{jen.Id(t.reuse.Decode).Call(jen.Id("d"), out.Clone())}
	case t.out == nil:
		result = jen.Index().Qual(mcpPkg, "Content")
	case !t.out.kind.nilable():
		result, declare = jen.Op("*").Add(goTypeOf(t.out)), out.Clone().Op(":=").New(goTypeOf(t.out))
		decode = decodeValue(jen.Op("*").Add(out.Clone()), t.out, 0)
	default:
		result, declare = goTypeOf(t.out), jen.Var().Add(out.Clone()).Add(goTypeOf(t.out))
		decode = decodeValue(out.Clone(), t.out, 0)
	}
	if declare == nil {
		call = append(call, jen.Return(jen.Id("res").Dot("Content"), jen.Nil()))
	} else {
		call = append(call,
			declare,
			jen.If(jen.Err().Op(":=").Id("decodeStructured").Call(jen.Id("res"), jen.Lit(t.Name),
				jen.Func().Params(jen.Id("d").Op("*").Qual(jsonwirePkg, "Decoder")).Block(decode...)), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err())),
			jen.Return(out.Clone(), jen.Nil()),
		)
	}
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(t.method).Params(params...).Params(result, jen.Error()).Block(append(pre, call...)...)
}

// prompts writes a method per prompt, with a struct of its arguments when it has any.
func (e *emitter) prompts(prompts []Prompt, methods namer) {
	f := e.file
	for _, p := range prompts {
		method := methods.unique("Prompt" + exported(p.Name))
		doc := method + " gets the prompt " + p.Name
		if d := strings.TrimSpace(p.Description); d != "" {
			doc += ": " + d
		} else {
			doc += "."
		}
		params := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
		body := []jen.Code{jen.Id("args").Op(":=").Map(jen.String()).String().Values()}
		if len(p.Arguments) > 0 {
			argsType := e.pkg.names.unique(method + "Args")
			var fields []jen.Code
			names := namer{}
			for _, a := range p.Arguments {
				name := names.unique(exported(a.Name))
				if a.Description != "" {
					fields = append(fields, comment(a.Description))
				}
				if a.Required {
					fields = append(fields, jen.Id(name).String().Tag(map[string]string{"json": a.Name}))
					body = append(body, jen.Id("args").Index(jen.Lit(a.Name)).Op("=").Id("in").Dot(name))
				} else {
					fields = append(fields, jen.Id(name).Op("*").String().Tag(map[string]string{"json": a.Name + ",omitempty"}))
					body = append(body, jen.If(jen.Id("in").Dot(name).Op("!=").Nil()).Block(jen.Id("args").Index(jen.Lit(a.Name)).Op("=").Op("*").Id("in").Dot(name)))
				}
			}
			f.Comment(argsType + " are the arguments of the prompt " + p.Name + ".")
			f.Type().Id(argsType).Struct(fields...)
			params = append(params, jen.Id("in").Id(argsType))
		}
		body = append(body, jen.Return(jen.Id("c").Dot("MCP").Dot("GetPrompt").Call(jen.Id("ctx"), jen.Lit(p.Name), jen.Id("args"))))
		f.Add(comment(doc))
		f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(method).Params(params...).Params(jen.Op("*").Qual(mcpPkg, "GetPromptResult"), jen.Error()).Block(body...)
	}
}

// templates writes a method per resource template, taking its variables.
func (e *emitter) templates(templates []ResourceTemplate, methods namer) {
	f := e.file
	for _, t := range templates {
		method := methods.unique("Read" + exported(t.Name))
		doc := method + " reads the resource " + t.URITemplate
		if d := strings.TrimSpace(cmpOr(t.Description, t.Title)); d != "" {
			doc += ": " + d
		} else {
			doc += "."
		}
		doc += "\n\nAn empty argument leaves its variable undefined: RFC 6570 expands it to nothing."
		params := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
		body := []jen.Code{jen.Id("vars").Op(":=").Map(jen.String()).String().Values()}
		names := namer{"ctx": true, "c": true, "uri": true, "err": true, "vars": true}
		for _, v := range mcp.URITemplateVariables(t.URITemplate) {
			name := names.unique(unexported(v))
			params = append(params, jen.Id(name).String())
			body = append(body, jen.If(jen.Id(name).Op("!=").Lit("")).Block(jen.Id("vars").Index(jen.Lit(v)).Op("=").Id(name)))
		}
		f.Add(comment(doc))
		f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(method).Params(params...).Params(jen.Index().Qual(mcpPkg, "ResourceContents"), jen.Error()).Block(append(body,
			jen.List(jen.Id("uri"), jen.Err()).Op(":=").Qual(mcpPkg, "ExpandURITemplate").Call(jen.Lit(t.URITemplate), jen.Id("vars")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("c").Dot("MCP").Dot("ReadResource").Call(jen.Id("ctx"), jen.Id("uri"))),
		)...)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// helpers writes the functions the methods and codecs share.
func (e *emitter) helpers(tools []*tool) {
	f := e.file
	structured := false
	for _, t := range tools {
		structured = structured || t.out != nil || t.reuse.Out != nil
	}
	if structured {
		f.Add(comment("decodeStructured decodes a result's structured content, which the client has checked against the tool's output schema."))
		f.Func().Id("decodeStructured").Params(jen.Id("res").Op("*").Qual(mcpPkg, "CallToolResult"), jen.Id("tool").String(), jen.Id("decode").Func().Params(jen.Op("*").Qual(jsonwirePkg, "Decoder"))).Error().Block(
			jen.If(jen.Id("res").Dot("StructuredContent").Op("==").Nil()).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("tools/call %s: the result has no structuredContent"), jen.Id("tool")))),
			jen.If(jen.Err().Op(":=").Id("decodeJSON").Call(jen.Id("res").Dot("StructuredContent"), jen.Id("decode")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("tools/call %s: structuredContent: %w"), jen.Id("tool"), jen.Err()))),
			jen.Return(jen.Nil()),
		)
	}
	f.Comment("decodeJSON decodes one JSON value with decode, and says what was wrong with it.")
	f.Func().Id("decodeJSON").Params(jen.Id("data").Index().Byte(), jen.Id("decode").Func().Params(jen.Op("*").Qual(jsonwirePkg, "Decoder"))).Error().Block(
		jen.Id("d").Op(":=").Qual(jsonwirePkg, "NewDecoder").Call(jen.Id("data")),
		jen.Id("decode").Call(jen.Id("d")),
		jen.Id("d").Dot("Finish").Call(),
		jen.If(jen.Id("d").Dot("Failed").Call()).Block(jen.Return(jen.Qual("errors", "New").Call(jen.Id("d").Dot("Summary").Call()))),
		jen.Return(jen.Nil()),
	)
}
