package emit

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The generated code of a prompt (its mcp.Prompt in RegisterMCP, and its Get function) and
// of a completion (its mcp.Completion, and its Complete function).

func promptNames(e *emitter, d model.Decl) {
	pr := d.(*model.Prompt)
	e.allocID(pr, "Get", model.GenPrefix+"Get"+goName(&pr.Callable))
}

func registerPrompt(e *emitter, d model.Decl) jen.Code {
	pr := d.(*model.Prompt)
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
		fields = append(fields, field("Arguments", multiLine(jen.Index().Qual(model.RuntimePath, "PromptArgument"), args...)))
	}
	fields = appendScopes(fields, pr.Scopes)
	fields = appendIcons(fields, pr.Icons)
	params := []jen.Code{e.local("ctx").Qual("context", "Context"), e.local("args").Op("*").Qual(model.RuntimePath, "Input")}
	results := []jen.Code{jen.Op("*").Qual(model.RuntimePath, "GetPromptResult"), jen.Error()}
	fields = append(fields, field("Get", e.handler(e.id(pr, "Get"), &pr.Callable, params, results, []jen.Code{e.local("ctx"), e.local("args")})))
	return e.local("s").Dot("AddPrompt").Call(multiLine(jen.Qual(model.RuntimePath, "Prompt"), fields...))
}

func promptCode(e *emitter, ds []model.Decl) []jen.Code {
	var out []jen.Code
	for _, d := range ds {
		out = append(out, e.getFunc(d.(*model.Prompt)))
	}
	return out
}

// getFunc emits the Get function of a prompt.
func (e *emitter) getFunc(pr *model.Prompt) jen.Code {
	params := []jen.Code{e.ctxParam(&pr.Callable), e.local("args").Op("*").Qual(model.RuntimePath, "Input")}
	params = append(params, e.recvParam(&pr.Callable)...)
	body := e.decodeInput(pr.In, jen.Return(jen.Nil(), e.local("err")))
	var args []jen.Code
	if pr.In != nil {
		args = append(args, e.argument("in", pr.InPointer))
	}
	body = append(body, e.callAndCheck(&pr.Callable, args...)...)
	var result jen.Code
	switch pr.Out {
	case model.PromptText:
		msg := jen.Values(jen.Dict{
			jen.Id("Role"):    jen.Qual(model.RuntimePath, "RoleUser"),
			jen.Id("Content"): jen.Qual(model.RuntimePath, "Text").Values(jen.Dict{jen.Id("Text"): e.convert(e.local("out"), pr.OutGo, types.Typ[types.String])}),
		})
		result = jen.Op("&").Qual(model.RuntimePath, "GetPromptResult").Values(jen.Dict{
			jen.Id("Messages"): jen.Index().Qual(model.RuntimePath, "PromptMessage").Values(msg),
		})
	case model.PromptMessage:
		result = jen.Op("&").Qual(model.RuntimePath, "GetPromptResult").Values(jen.Dict{
			jen.Id("Messages"): jen.Index().Qual(model.RuntimePath, "PromptMessage").Values(e.local("out")),
		})
	case model.PromptMessages:
		result = jen.Op("&").Qual(model.RuntimePath, "GetPromptResult").Values(jen.Dict{jen.Id("Messages"): e.local("out")})
	case model.PromptResult:
		result = e.argument("out", !pr.OutPointer)
	}
	body = append(body, jen.Return(result, jen.Nil()))
	name := e.id(pr, "Get")
	return jen.Comment(fmt.Sprintf("%s serves prompt %s.", name, pr.Name)).Line().
		Func().Id(name).Params(params...).Params(jen.Op("*").Qual(model.RuntimePath, "GetPromptResult"), jen.Error()).Block(body...)
}

func completionNames(e *emitter, d model.Decl) {
	c := d.(*model.Completion)
	e.allocID(c, "Complete", model.GenPrefix+"Complete"+goName(&c.Callable))
}

func registerCompletion(e *emitter, d model.Decl) jen.Code {
	c := d.(*model.Completion)
	var fields []jen.Code
	fields = optionalFields(fields, "Prompt", c.Prompt, "ResourceTemplate", c.Template, "Argument", c.Argument)
	params := []jen.Code{e.local("ctx").Qual("context", "Context"), e.local("req").Qual(model.RuntimePath, "CompletionRequest")}
	results := []jen.Code{jen.Index().String(), jen.Error()}
	fields = append(fields, field("Complete", e.handler(e.id(c, "Complete"), &c.Callable, params, results, []jen.Code{e.local("ctx"), e.local("req")})))
	return e.local("s").Dot("AddCompletion").Call(multiLine(jen.Qual(model.RuntimePath, "Completion"), fields...))
}

func completionCode(e *emitter, ds []model.Decl) []jen.Code {
	var out []jen.Code
	for _, d := range ds {
		out = append(out, e.completeFunc(d.(*model.Completion)))
	}
	return out
}

// completeFunc emits the Complete function of a completion.
func (e *emitter) completeFunc(c *model.Completion) jen.Code {
	params := []jen.Code{e.ctxParam(&c.Callable), e.local("req").Qual(model.RuntimePath, "CompletionRequest")}
	params = append(params, e.recvParam(&c.Callable)...)
	arg := e.local("req")
	if !c.Request {
		arg = e.local("req").Dot("Value")
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
