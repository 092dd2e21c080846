package openapi

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/importer"
)

// clientFile writes Client: the API over HTTP.
func (g *writer) clientFile() *jen.File {
	f := jen.NewFile(g.opts.Package)
	g.header(f)
	f.ImportName(httpapiPkg, "httpapi")
	f.ImportName(jsonwirePkg, "jsonwire")
	f.ImportName(mcpPkg, "mcp")

	server := ""
	if len(g.doc.Servers) > 0 {
		server = g.doc.Servers[0]
	}
	f.Comment("DefaultBaseURL is the document's first server: where Client sends its calls unless told otherwise.")
	f.Const().Id("DefaultBaseURL").Op("=").Lit(server)

	var schemes []jen.Code
	for _, s := range g.schemes {
		flag := ""
		if g.opts.Main {
			flag = g.flags[s.Name] // only the generated server program has the flags
		}
		schemes = append(schemes, jen.Lit(s.Name).Op(":").Values(jen.Dict{
			jen.Id("Name"):       jen.Lit(s.Name),
			jen.Id("Type"):       jen.Lit(s.Type),
			jen.Id("In"):         jen.Lit(s.In),
			jen.Id("Param"):      jen.Lit(s.ParamName),
			jen.Id("HTTPScheme"): jen.Lit(s.Scheme),
			jen.Id("TokenURL"):   jen.Lit(s.TokenURL),
			jen.Id("Env"):        jen.Lit(g.envs[s.Name]),
			jen.Id("Flag"):       jen.Lit(flag),
		}))
	}
	f.Comment("Schemes are the security schemes the operations use, and where their credentials come from.")
	f.Var().Id("Schemes").Op("=").Map(jen.String()).Qual(httpapiPkg, "Scheme").Values(schemes...)

	f.Comment("Client calls the API over HTTP: it implements API, each method sending the request its typed arguments make and decoding the answer. Set Credentials (by security scheme: Schemes says what each holds); NewClient reads them from the environment.")
	f.Type().Id("Client").Struct(jen.Qual(httpapiPkg, "Client"))
	f.Comment("NewClient is a Client of the API at baseURL (DefaultBaseURL when empty), with the credentials the environment holds (Schemes names the variables).")
	f.Func().Id("NewClient").Params(jen.Id("baseURL").String()).Op("*").Id("Client").Block(
		jen.If(jen.Id("baseURL").Op("==").Lit("")).Block(jen.Id("baseURL").Op("=").Id("DefaultBaseURL")),
		jen.Id("c").Op(":=").Op("&").Id("Client").Values(),
		jen.Id("c").Dot("BaseURL").Op(",").Id("c").Dot("Schemes").Op("=").List(jen.Id("baseURL"), jen.Id("Schemes")),
		jen.Id("c").Dot("Credentials").Op("=").Map(jen.String()).String().Values(),
		jen.For(jen.List(jen.Id("name"), jen.Id("s")).Op(":=").Range().Id("Schemes")).Block(
			jen.If(jen.Id("v").Op(":=").Qual("os", "Getenv").Call(jen.Id("s").Dot("Env")), jen.Id("v").Op("!=").Lit("")).Block(
				jen.Id("c").Dot("Credentials").Index(jen.Id("name")).Op("=").Id("v"))),
		jen.Return(jen.Id("c")),
	)
	f.Var().Id("_").Id("API").Op("=").Parens(jen.Op("*").Id("Client")).Parens(jen.Nil())

	for _, t := range g.tools {
		g.clientMethod(f, t)
	}
	return f
}

// clientMethod writes the Client's method of one operation.
func (g *writer) clientMethod(f *jen.File, t *emitted) {
	op := t.Op
	r := g.resultOf(t)
	params := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	if in := t.m.InputName(); in != "" {
		params = append(params, jen.Id("in").Op("*").Id(in))
	}
	zero := jen.Lit("")
	switch r.kind {
	case "struct", "content":
		zero = jen.Nil()
	}
	fail := func(err jen.Code) jen.Code { return jen.Return(zero, err) }
	body := []jen.Code{jen.Id("r").Op(":=").Id("c").Dot("NewRequest").Call(jen.Lit(t.Name), jen.Lit(op.Method), jen.Lit(op.Path))}
	for _, a := range t.Args {
		if a.Param == nil {
			continue
		}
		fl := t.m.InputField(a.Key)
		if fl == nil {
			continue
		}
		body = append(body, paramCode(a, fl)...)
	}
	if b := op.Body; b != nil && b.Schema != nil {
		body = append(body, g.bodyCode(t, b)...)
	}
	ways := g.security(op)
	if len(ways) > 0 {
		var list []jen.Code
		for _, w := range ways {
			var names []jen.Code
			for _, s := range w {
				names = append(names, jen.Lit(s))
			}
			list = append(list, jen.Values(names...))
		}
		body = append(body, jen.If(jen.Err().Op(":=").Id("r").Dot("Auth").Call(jen.Id("ctx"), jen.Index().Index().String().Values(list...)), jen.Err().Op("!=").Nil()).Block(fail(jen.Err())))
	}
	body = append(body,
		jen.List(jen.Id("resp"), jen.Err()).Op(":=").Id("r").Dot("Do").Call(jen.Id("ctx")),
		jen.If(jen.Err().Op("!=").Nil()).Block(fail(jen.Err())))
	switch r.kind {
	case "struct":
		out := jen.Id("out")
		data := jen.Id("resp").Dot("Body")
		var pre []jen.Code
		if t.OutputWrap == "items" {
			pre = append(pre, jen.List(jen.Id("data"), jen.Id("cut")).Op(":=").Id("c").Dot("CutList").Call(jen.Id("resp").Dot("Body")))
			data = jen.Id("data")
		}
		body = append(body, pre...)
		body = append(body,
			out.Clone().Op(":=").New(resultElem(r)),
			jen.If(jen.Err().Op(":=").Id("decodeJSON").Call(data, jen.Func().Params(jen.Id("d").Op("*").Qual(jsonwirePkg, "Decoder")).Block(
				jen.Id(r.decodeFn).Call(jen.Id("d"), out.Clone()))), jen.Err().Op("!=").Nil()).Block(
				fail(jen.Qual("fmt", "Errorf").Call(jen.Lit(t.Name+": the API's answer is not what its document says: %w"), jen.Err()))),
		)
		if t.OutputWrap == "items" {
			body = append(body, jen.If(jen.Id("cut").Op("!=").Lit("")).Block(jen.Id("out").Dot("Truncated").Op("=").Op("&").Id("cut")))
			if t.Paged {
				var names []jen.Code
				for _, a := range t.Args {
					if a.In == "query" {
						names = append(names, jen.Lit(a.Name))
					}
				}
				body = append(body, jen.Id("out").Dot("Next").Op("=").Id("resp").Dot("Next").Call(names...))
			}
		}
		body = append(body, jen.Return(out, jen.Nil()))
	case "text":
		body = append(body, jen.Return(jen.String().Parens(jen.Id("resp").Dot("Body")), jen.Nil()))
	case "content":
		body = append(body, jen.Return(jen.Id("resp").Dot("Content").Call(), jen.Nil()))
	default:
		body = append(body, jen.Return(jen.Id("resp").Dot("Done").Call(), jen.Nil()))
	}
	f.Comment(fmt.Sprintf("%s calls %s %s.", t.Method, op.Method, op.Path))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(t.Method).Params(params...).Params(r.typ, jen.Error()).Block(body...)
}

// resultElem is the type a struct result points at.
func resultElem(r result) jen.Code {
	return jen.Id(strings.TrimPrefix(fmt.Sprintf("%#v", r.typ), "*"))
}

// text is the code of a scalar value's text in a URL or a header.
func text(x *jen.Statement, kind string) jen.Code {
	switch kind {
	case "string":
		return x
	case "enum":
		return jen.String().Parens(x)
	case "int":
		return jen.Qual("strconv", "FormatInt").Call(x, jen.Lit(10))
	case "float":
		return jen.Qual("strconv", "FormatFloat").Call(x, jen.LitRune('g'), jen.Lit(-1), jen.Lit(64))
	case "bool":
		return jen.Qual("strconv", "FormatBool").Call(x)
	case "time":
		return x.Dot("Format").Call(jen.Qual("time", "RFC3339Nano"))
	case "raw":
		return jen.String().Parens(x)
	case "bytes":
		return jen.Qual("encoding/base64", "StdEncoding").Dot("EncodeToString").Call(x)
	}
	// A struct, map or union: its JSON.
	return jen.Id("jsonText").Call(jen.Func().Params(jen.Id("e").Op("*").Qual(jsonwirePkg, "Encoder")).Block(x.Clone().Dot("encode").Call(jen.Id("e"))))
}

// paramCode sets one parameter from its field.
func paramCode(a *Arg, fl *importer.Field) []jen.Code { return paramInto(a, fl, "Query") }

// paramInto sets one parameter from its field; a query's with the request's method query
// (Query, or FormField for a form's field).
func paramInto(a *Arg, fl *importer.Field, query string) []jen.Code {
	if fl.Nullable {
		// A URL, a header or a form has no null: null is sent as left out.
		value := *fl
		value.Nullable, value.Name = false, ""
		return []jen.Code{jen.If(jen.List(jen.Id("x"), jen.Id("ok")).Op(":=").Id("in").Dot(fl.Name).Dot("Get").Call(), jen.Id("ok")).Block(
			paramOf(a, &value, jen.Id("x"), query)...)}
	}
	return paramOf(a, fl, jen.Id("in").Dot(fl.Name), query)
}

// paramOf sets one parameter from the value v (a field, or an mcp.Nullable's value).
func paramOf(a *Arg, fl *importer.Field, v *jen.Statement, query string) []jen.Code {
	p := a.Param
	var set func(values jen.Code, list bool) jen.Code
	switch p.In {
	case "path":
		set = func(x jen.Code, list bool) jen.Code {
			if list {
				return jen.Id("r").Dot("Path").Call(jen.Lit(p.Name), jen.Qual("strings", "Join").Call(x, jen.Lit(",")))
			}
			return jen.Id("r").Dot("Path").Call(jen.Lit(p.Name), x)
		}
	case "header", "cookie":
		method := map[string]string{"header": "Header", "cookie": "Cookie"}[p.In]
		set = func(x jen.Code, list bool) jen.Code {
			if list {
				return jen.Id("r").Dot(method).Call(jen.Lit(p.Name), jen.Qual("strings", "Join").Call(x, jen.Lit(",")))
			}
			return jen.Id("r").Dot(method).Call(jen.Lit(p.Name), x)
		}
	default: // query
		set = func(x jen.Code, list bool) jen.Code {
			if !list {
				return jen.Id("r").Dot(query).Call(jen.Lit(p.Name), x)
			}
			switch {
			case p.Style == "spaceDelimited":
				return jen.Id("r").Dot(query).Call(jen.Lit(p.Name), jen.Qual("strings", "Join").Call(x, jen.Lit(" ")))
			case p.Style == "pipeDelimited":
				return jen.Id("r").Dot(query).Call(jen.Lit(p.Name), jen.Qual("strings", "Join").Call(x, jen.Lit("|")))
			case p.Explode:
				return jen.Id("r").Dot(query).Call(jen.Lit(p.Name), jen.Add(x).Op("..."))
			}
			return jen.Id("r").Dot(query).Call(jen.Lit(p.Name), jen.Qual("strings", "Join").Call(x, jen.Lit(",")))
		}
	}
	if fl.Kind == "slice" && fl.Elem != "" && fl.Elem != "slice" && fl.Elem != "map" {
		return []jen.Code{jen.If(v.Clone().Op("!=").Nil()).Block(
			jen.Id("vals").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Len(v.Clone())),
			jen.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Add(v.Clone())).Block(
				jen.Id("vals").Op("=").Append(jen.Id("vals"), text(jen.Id("x"), fl.Elem))),
			set(jen.Id("vals"), true),
		)}
	}
	switch {
	case fl.Pointer:
		x := jen.Op("*").Add(v.Clone())
		if fl.Kind != "string" && fl.Kind != "enum" && fl.Kind != "int" && fl.Kind != "float" && fl.Kind != "bool" {
			x = jen.Parens(x) // a selector follows: (*in.Since).Format
		}
		return []jen.Code{jen.If(v.Clone().Op("!=").Nil()).Block(set(text(x, fl.Kind), false))}
	case fl.Kind == "raw" || fl.Kind == "map" || fl.Kind == "slice" || fl.Kind == "bytes":
		return []jen.Code{jen.If(v.Clone().Op("!=").Nil()).Block(set(text(v.Clone(), fl.Kind), false))}
	}
	return []jen.Code{set(text(v.Clone(), fl.Kind), false)}
}

// bodyCode sets the request body.
func (g *writer) bodyCode(t *emitted, b *Body) []jen.Code {
	fail := jen.Id("r").Dot("Refuse").Call(jen.Lit("its " + b.MediaType + " body is not one mcpgen openapi can send (a form of no properties)"))
	jsonBody := []jen.Code{
		jen.Var().Id("e").Qual(jsonwirePkg, "Encoder"),
		jen.Id("in").Dot("encodeBody").Call(jen.Op("&").Id("e")),
		jen.Id("r").Dot("JSON").Call(jen.Op("&").Id("e")),
	}
	switch b.Kind {
	case BodyJSON:
		if t.BodyFlat {
			return jsonBody
		}
		fl := t.m.InputField("body")
		if fl == nil {
			return nil
		}
		switch {
		case fl.Nullable: // null is sent as the body null
			return []jen.Code{jen.If(jen.Op("!").Id("in").Dot(fl.Name).Dot("IsZero").Call()).Block(jsonBody...)}
		case fl.Pointer || fl.Optional:
			return []jen.Code{jen.If(jen.Id("in").Dot(fl.Name).Op("!=").Nil()).Block(jsonBody...)}
		}
		return jsonBody
	case BodyForm, BodyMultipart:
		if !t.BodyFlat {
			return []jen.Code{fail}
		}
		var code []jen.Code
		for _, a := range t.Args {
			if a.In != "body" {
				continue
			}
			fl := t.m.InputField(a.Key)
			if fl == nil {
				continue
			}
			if b.Kind == BodyMultipart && (fl.Kind == "bytes" || fl.Kind == "slice" && fl.Elem == "bytes") {
				code = append(code, fileCode(a.Name, fl)...)
				continue
			}
			fake := &Arg{Param: &Param{Name: a.Name, In: "query", Explode: true}}
			code = append(code, paramInto(fake, fl, "FormField")...)
		}
		return append(code, jen.Id("r").Dot("SendForm").Call(jen.Lit(b.Kind == BodyMultipart)))
	case BodyText:
		fl := t.m.InputField("body")
		if fl == nil {
			return nil
		}
		x := jen.Id("in").Dot(fl.Name)
		if fl.Nullable { // no text is no body
			return []jen.Code{jen.If(jen.List(jen.Id("x"), jen.Id("ok")).Op(":=").Add(x).Dot("Get").Call(), jen.Id("ok")).Block(jen.Id("r").Dot("Raw").Call(jen.Lit(b.MediaType), jen.Index().Byte().Parens(jen.Id("x"))))}
		}
		if fl.Pointer {
			return []jen.Code{jen.If(x.Clone().Op("!=").Nil()).Block(jen.Id("r").Dot("Raw").Call(jen.Lit(b.MediaType), jen.Index().Byte().Parens(jen.Op("*").Add(x.Clone()))))}
		}
		return []jen.Code{jen.Id("r").Dot("Raw").Call(jen.Lit(b.MediaType), jen.Index().Byte().Parens(x))}
	case BodyBinary:
		fl := t.m.InputField("body")
		if fl == nil {
			return nil
		}
		x := jen.Id("in").Dot(fl.Name)
		if fl.Nullable {
			return []jen.Code{jen.If(jen.List(jen.Id("x"), jen.Id("ok")).Op(":=").Add(x).Dot("Get").Call(), jen.Id("ok")).Block(jen.Id("r").Dot("Base64").Call(jen.Lit(b.MediaType), jen.Id("x")))}
		}
		if fl.Pointer {
			return []jen.Code{jen.If(x.Clone().Op("!=").Nil()).Block(jen.Id("r").Dot("Base64").Call(jen.Lit(b.MediaType), jen.Op("*").Add(x.Clone())))}
		}
		return []jen.Code{jen.Id("r").Dot("Base64").Call(jen.Lit(b.MediaType), x)}
	}
	return []jen.Code{fail}
}

// fileCode adds a multipart form's file field: a file part per []byte, none when left out
// (or null).
func fileCode(name string, fl *importer.Field) []jen.Code {
	v := jen.Id("in").Dot(fl.Name)
	add := func(x jen.Code) jen.Code { return jen.Id("r").Dot("FormFile").Call(jen.Lit(name), x) }
	each := func(list jen.Code) jen.Code {
		return jen.For(jen.List(jen.Id("_"), jen.Id("f")).Op(":=").Range().Add(list)).Block(add(jen.Id("f")))
	}
	switch {
	case fl.Nullable && fl.Kind == "slice":
		return []jen.Code{jen.If(jen.List(jen.Id("x"), jen.Id("ok")).Op(":=").Add(v).Dot("Get").Call(), jen.Id("ok")).Block(each(jen.Id("x")))}
	case fl.Nullable:
		return []jen.Code{jen.If(jen.List(jen.Id("x"), jen.Id("ok")).Op(":=").Add(v).Dot("Get").Call(), jen.Id("ok")).Block(add(jen.Id("x")))}
	case fl.Kind == "slice":
		return []jen.Code{each(v)}
	case fl.Optional:
		return []jen.Code{jen.If(v.Clone().Op("!=").Nil()).Block(add(v.Clone()))}
	}
	return []jen.Code{add(v)}
}
