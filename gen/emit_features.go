package gen

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The generated code of resources, prompts, completions and elicitation forms.

func field(name string, value jen.Code) jen.Code { return jen.Id(name).Op(":").Add(value) }

// multiLine writes a composite literal one field per line.
func multiLine(typ *jen.Statement, fields ...jen.Code) *jen.Statement {
	return typ.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, fields...)
}

// optionalFields adds string fields that are set.
func optionalFields(fields []jen.Code, kv ...string) []jen.Code {
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] != "" {
			fields = append(fields, field(kv[i], jen.Lit(kv[i+1])))
		}
	}
	return fields
}

// registerFeatures emits the RegisterMCP statements of everything but tools.
func (e *emitter) registerFeatures(p *pkgGen) []jen.Code {
	s := jen.Id("s")
	var out []jen.Code
	for _, r := range p.resources {
		name := e.id(r, "Read")
		var fields []jen.Code
		if r.Template() {
			fields = append(fields, field("URITemplate", jen.Lit(r.URI)))
		} else {
			fields = append(fields, field("URI", jen.Lit(r.URI)))
		}
		fields = append(fields, field("Name", jen.Lit(r.Name)))
		fields = optionalFields(fields, "Title", r.Title, "Description", r.Description, "MIMEType", r.MIMEType)
		ctxParam := jen.Id("ctx").Qual("context", "Context")
		params := []jen.Code{ctxParam, jen.Id("uri").String()}
		args := []jen.Code{jen.Id("ctx"), jen.Id("uri")}
		if r.Template() {
			params = append(params, jen.Id("vars").Map(jen.String()).String())
			args = append(args, jen.Id("vars"))
		}
		results := []jen.Code{jen.Index().Qual(RuntimePath, "ResourceContents"), jen.Error()}
		fields = append(fields, field("Read", e.handler(name, &r.Callable, params, results, args)))
		if r.Template() {
			out = append(out, s.Clone().Dot("AddResourceTemplate").Call(multiLine(jen.Qual(RuntimePath, "ResourceTemplate"), fields...)))
		} else {
			out = append(out, s.Clone().Dot("AddResource").Call(multiLine(jen.Qual(RuntimePath, "Resource"), fields...)))
		}
	}
	for _, pr := range p.prompts {
		fields := []jen.Code{field("Name", jen.Lit(pr.Name))}
		fields = optionalFields(fields, "Title", pr.Title, "Description", pr.Description)
		if pr.In != nil {
			var args []jen.Code
			for _, f := range pr.In.Object.Fields {
				af := []jen.Code{field("Name", jen.Lit(f.Name))}
				af = optionalFields(af, "Title", f.Type.Deref().Rules.Title, "Description", schema.Description(f))
				if f.Required {
					af = append(af, field("Required", jen.True()))
				}
				args = append(args, jen.Values(af...))
			}
			fields = append(fields, field("Arguments", multiLine(jen.Index().Qual(RuntimePath, "PromptArgument"), args...)))
		}
		params := []jen.Code{jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Op("*").Qual(RuntimePath, "Input")}
		results := []jen.Code{jen.Op("*").Qual(RuntimePath, "GetPromptResult"), jen.Error()}
		name := e.id(pr, "Get")
		fields = append(fields, field("Get", e.handler(name, &pr.Callable, params, results, []jen.Code{jen.Id("ctx"), jen.Id("args")})))
		out = append(out, s.Clone().Dot("AddPrompt").Call(multiLine(jen.Qual(RuntimePath, "Prompt"), fields...)))
	}
	for _, c := range p.completions {
		var fields []jen.Code
		fields = optionalFields(fields, "Prompt", c.Prompt, "ResourceTemplate", c.Template, "Argument", c.Argument)
		params := []jen.Code{jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Qual(RuntimePath, "CompletionRequest")}
		results := []jen.Code{jen.Index().String(), jen.Error()}
		name := e.id(c, "Complete")
		fields = append(fields, field("Complete", e.handler(name, &c.Callable, params, results, []jen.Code{jen.Id("ctx"), jen.Id("req")})))
		out = append(out, s.Clone().Dot("AddCompletion").Call(multiLine(jen.Qual(RuntimePath, "Completion"), fields...)))
	}
	for _, fm := range p.forms {
		o := fm.Type.Object
		out = append(out, jen.Qual(RuntimePath, "AddForm").Call(s.Clone(), jen.Id(e.id(o, "Form")), jen.Id(e.id(o, "Decode"))))
	}
	return out
}

// handler is the generated function that serves an annotated function; for a method, a
// closure that passes it the receiver RegisterMCP was given.
func (e *emitter) handler(name string, c *Callable, params, results, args []jen.Code) jen.Code {
	if c.Recv == nil {
		return jen.Id(name)
	}
	return jen.Func().Params(params...).Params(results...).Block(
		jen.Return(jen.Id(name).Call(append(args, jen.Id(c.Recv.Param))...)),
	)
}

// invoke calls the user's function with the context (if it takes one) and args.
func (e *emitter) invoke(c *Callable, args ...jen.Code) *jen.Statement {
	var all []jen.Code
	if c.Ctx {
		all = append(all, jen.Id("ctx"))
	}
	all = append(all, args...)
	if c.Recv != nil {
		return jen.Id("recv").Dot(c.Func.Name()).Call(all...)
	}
	return e.ref(c.Func.Name()).Call(all...)
}

// callAndCheck calls the user's function and returns its error, if it has one, as the
// handler's second result; out is then the function's result.
func (e *emitter) callAndCheck(c *Callable, args ...jen.Code) []jen.Code {
	if !c.Err {
		return []jen.Code{jen.Id("out").Op(":=").Add(e.invoke(c, args...))}
	}
	return []jen.Code{
		jen.List(jen.Id("out"), jen.Err()).Op(":=").Add(e.invoke(c, args...)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
	}
}

func ctxParam(c *Callable) jen.Code {
	if c.Ctx {
		return jen.Id("ctx").Qual("context", "Context")
	}
	return jen.Id("_").Qual("context", "Context")
}

// recvParam is the receiver parameter of a method's handler.
func (e *emitter) recvParam(c *Callable) []jen.Code {
	if c.Recv == nil {
		return nil
	}
	return []jen.Code{jen.Id("recv").Add(e.recvType(c.Recv))}
}

// readFunc emits the Read function of a resource or template.
func (e *emitter) readFunc(r *Resource) jen.Code {
	params := []jen.Code{ctxParam(&r.Callable), jen.Id("uri").String()}
	var body, args []jen.Code
	if r.Template() {
		params = append(params, jen.Id("vars").Map(jen.String()).String())
		lits := []jen.Code{jen.Id("uri"), jen.Id("vars")}
		for _, name := range r.Literal {
			lits = append(lits, jen.Lit(name))
		}
		body = append(body, jen.Id("args").Op(":=").Qual(RuntimePath, "TemplateInput").Call(lits...))
		body = append(body, e.decodeInput(r.In, jen.Return(jen.Nil(), jen.Err()))...)
		args = append(args, argument("in", r.InPointer))
	}
	params = append(params, e.recvParam(&r.Callable)...)
	body = append(body, e.callAndCheck(&r.Callable, args...)...)
	var result jen.Code
	switch r.Out {
	case ResourceText:
		result = jen.Qual(RuntimePath, "TextContents").Call(jen.Id("uri"), e.convert(jen.Id("out"), r.OutGo, types.Typ[types.String]))
	case ResourceBlob:
		result = jen.Qual(RuntimePath, "BlobContents").Call(jen.Id("uri"), e.convert(jen.Id("out"), r.OutGo, types.NewSlice(types.Typ[types.Byte])))
	case ResourceContents:
		result = jen.Index().Qual(RuntimePath, "ResourceContents").Values(jen.Id("out"))
	case ResourceList:
		result = jen.Id("out")
	}
	body = append(body, jen.Return(result, jen.Nil()))
	name := e.id(r, "Read")
	kind := "resource"
	if r.Template() {
		kind = "resource template"
	}
	return jen.Comment(fmt.Sprintf("%s serves %s %s.", name, kind, r.URI)).Line().
		Func().Id(name).Params(params...).Params(jen.Index().Qual(RuntimePath, "ResourceContents"), jen.Error()).Block(body...)
}

func argument(name string, pointer bool) jen.Code {
	if pointer {
		return jen.Op("&").Id(name)
	}
	return jen.Id(name)
}

// getFunc emits the Get function of a prompt.
func (e *emitter) getFunc(pr *Prompt) jen.Code {
	params := []jen.Code{ctxParam(&pr.Callable), jen.Id("args").Op("*").Qual(RuntimePath, "Input")}
	params = append(params, e.recvParam(&pr.Callable)...)
	body := e.decodeInput(pr.In, jen.Return(jen.Nil(), jen.Err()))
	var args []jen.Code
	if pr.In != nil {
		args = append(args, argument("in", pr.InPointer))
	}
	body = append(body, e.callAndCheck(&pr.Callable, args...)...)
	var result jen.Code
	switch pr.Out {
	case PromptText:
		msg := jen.Values(jen.Dict{
			jen.Id("Role"):    jen.Qual(RuntimePath, "RoleUser"),
			jen.Id("Content"): jen.Qual(RuntimePath, "Text").Values(jen.Dict{jen.Id("Text"): e.convert(jen.Id("out"), pr.OutGo, types.Typ[types.String])}),
		})
		result = jen.Op("&").Qual(RuntimePath, "GetPromptResult").Values(jen.Dict{
			jen.Id("Messages"): jen.Index().Qual(RuntimePath, "PromptMessage").Values(msg),
		})
	case PromptMessage:
		result = jen.Op("&").Qual(RuntimePath, "GetPromptResult").Values(jen.Dict{
			jen.Id("Messages"): jen.Index().Qual(RuntimePath, "PromptMessage").Values(jen.Id("out")),
		})
	case PromptMessages:
		result = jen.Op("&").Qual(RuntimePath, "GetPromptResult").Values(jen.Dict{jen.Id("Messages"): jen.Id("out")})
	case PromptResult:
		result = argument("out", !pr.OutPointer)
	}
	body = append(body, jen.Return(result, jen.Nil()))
	name := e.id(pr, "Get")
	return jen.Comment(fmt.Sprintf("%s serves prompt %s.", name, pr.Name)).Line().
		Func().Id(name).Params(params...).Params(jen.Op("*").Qual(RuntimePath, "GetPromptResult"), jen.Error()).Block(body...)
}

// completeFunc emits the Complete function of a completion.
func (e *emitter) completeFunc(c *Completion) jen.Code {
	params := []jen.Code{ctxParam(&c.Callable), jen.Id("req").Qual(RuntimePath, "CompletionRequest")}
	params = append(params, e.recvParam(&c.Callable)...)
	arg := jen.Id("req")
	if !c.Request {
		arg = jen.Id("req").Dot("Value")
	}
	var body []jen.Code
	if c.Err {
		body = append(body, jen.Return(e.invoke(&c.Callable, arg)))
	} else {
		body = append(body, jen.Return(e.invoke(&c.Callable, arg), jen.Nil()))
	}
	name := e.id(c, "Complete")
	what := "prompt " + c.Prompt
	if c.Template != "" {
		what = "resource template " + c.Template
	}
	return jen.Comment(fmt.Sprintf("%s completes argument %s of %s.", name, c.Argument, what)).Line().
		Func().Id(name).Params(params...).Params(jen.Index().String(), jen.Error()).Block(body...)
}

// formSchemas emits the requested schemas of the elicitation forms as constants.
func (e *emitter) formSchemas(forms []*Form) jen.Code {
	var defs []jen.Code
	for _, fm := range forms {
		defs = append(defs, jen.Id(e.id(fm.Type.Object, "Form")).Op("=").Op("`"+string(schema.RenderForm(fm.Type))+"`"))
	}
	return jen.Comment("Requested schemas of the elicitation forms (mcp.Elicit).").Line().Const().Defs(defs...)
}
