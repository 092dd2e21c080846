package emit

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/model"
)

// The generated code of a resource or resource template: its mcp.Resource (or
// mcp.ResourceTemplate) in RegisterMCP, and its Read function.

func resourceNames(e *emitter, d model.Decl) {
	r := d.(*model.Resource)
	e.allocID(r, "Read", model.GenPrefix+"Read"+goName(&r.Callable))
}

func registerResource(e *emitter, d model.Decl) jen.Code {
	r := d.(*model.Resource)
	var fields []jen.Code
	if r.Template() {
		fields = append(fields, field("URITemplate", jen.Lit(r.URI)))
	} else {
		fields = append(fields, field("URI", jen.Lit(r.URI)))
	}
	fields = append(fields, field("Name", jen.Lit(r.Name)))
	fields = optionalFields(fields, "Title", r.Title, "Description", r.Description, "MIMEType", r.MIMEType)
	fields = appendScopes(fields, r.Scopes)
	fields = appendIcons(fields, r.Icons)
	params := []jen.Code{e.local("ctx").Qual("context", "Context"), e.local("uri").String()}
	args := []jen.Code{e.local("ctx"), e.local("uri")}
	if r.Template() {
		params = append(params, e.local("vars").Map(jen.String()).String())
		args = append(args, e.local("vars"))
	}
	results := []jen.Code{jen.Index().Qual(model.RuntimePath, "ResourceContents"), jen.Error()}
	fields = append(fields, field("Read", e.handler(e.id(r, "Read"), &r.Callable, params, results, args)))
	if r.Template() {
		return e.local("s").Dot("AddResourceTemplate").Call(multiLine(jen.Qual(model.RuntimePath, "ResourceTemplate"), fields...))
	}
	return e.local("s").Dot("AddResource").Call(multiLine(jen.Qual(model.RuntimePath, "Resource"), fields...))
}

func resourceCode(e *emitter, ds []model.Decl) []jen.Code {
	var out []jen.Code
	for _, d := range ds {
		out = append(out, e.readFunc(d.(*model.Resource)))
	}
	return out
}

// readFunc emits the Read function of a resource or template.
func (e *emitter) readFunc(r *model.Resource) jen.Code {
	params := []jen.Code{e.ctxParam(&r.Callable), e.local("uri").String()}
	var body, args []jen.Code
	if r.Template() {
		params = append(params, e.local("vars").Map(jen.String()).String())
		lits := []jen.Code{e.local("uri"), e.local("vars")}
		for _, name := range r.Literal {
			lits = append(lits, jen.Lit(name))
		}
		body = append(body, e.local("args").Op(":=").Qual(model.ContractPath, "TemplateInput").Call(lits...))
		body = append(body, e.decodeInput(r.In, jen.Return(jen.Nil(), e.local("err")))...)
		args = append(args, e.argument("in", r.InPointer))
	}
	params = append(params, e.recvParam(&r.Callable)...)
	body = append(body, e.callAndCheck(&r.Callable, args...)...)
	var result jen.Code
	switch r.Out {
	case model.ResourceText:
		result = jen.Qual(model.ContractPath, "TextContents").Call(e.local("uri"), e.convert(e.local("out"), r.OutGo, types.Typ[types.String]))
	case model.ResourceBlob:
		result = jen.Qual(model.ContractPath, "BlobContents").Call(e.local("uri"), e.convert(e.local("out"), r.OutGo, types.NewSlice(types.Typ[types.Byte])))
	case model.ResourceContents:
		result = jen.Index().Qual(model.RuntimePath, "ResourceContents").Values(e.local("out"))
	case model.ResourceList:
		result = e.local("out")
	case model.ResourceMarshaler:
		if r.OutPointer {
			body = append(body, jen.If(e.local("out").Op("==").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit("resource "+r.URI+" returned a nil pointer, not contents"))),
			))
		}
		data := e.local("raw")
		body = append(body,
			jen.List(data, e.local("err")).Op(":=").Add(e.local("out")).Dot("MarshalJSON").Call(),
			jen.If(e.local("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), e.local("err"))),
			// encoding/json checks what a MarshalJSON writes too: a client must not get
			// contents that claim to be JSON and are not.
			jen.If(jen.Op("!").Qual("encoding/json", "Valid").Call(data)).Block(
				jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit("resource "+r.URI+": its MarshalJSON wrote invalid JSON"))),
			),
		)
		result = jen.Qual(model.ContractPath, "TextContents").Call(e.local("uri"), jen.String().Call(data))
	case model.ResourceJSON:
		value := jen.Op("&").Add(e.local("out"))
		if r.OutPointer {
			value = e.local("out")
			body = append(body, jen.If(e.local("out").Op("==").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit("resource "+r.URI+" returned a nil pointer, not contents"))),
			))
		}
		enc := e.local("enc")
		body = append(body,
			jen.Var().Add(enc).Qual(model.JSONWirePath, "Encoder"),
			jen.Id(e.id(r.OutType.Deref().Object, "Encode")).Call(jen.Op("&").Add(enc), value),
			jen.If(e.local("err").Op(":=").Add(enc).Dot("Err").Call(), e.local("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), e.local("err"))),
		)
		result = jen.Qual(model.ContractPath, "TextContents").Call(e.local("uri"), jen.String().Call(enc.Clone().Dot("Bytes").Call()))
	}
	body = append(body, jen.Return(result, jen.Nil()))
	name := e.id(r, "Read")
	kind := "resource"
	if r.Template() {
		kind = "resource template"
	}
	return jen.Comment(fmt.Sprintf("%s serves %s %s.", name, kind, r.URI)).Line().
		Func().Id(name).Params(params...).Params(jen.Index().Qual(model.RuntimePath, "ResourceContents"), jen.Error()).Block(body...)
}
