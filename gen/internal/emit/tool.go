package emit

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The generated code of a tool: its JSON Schemas as constants, its mcp.Tool in RegisterMCP,
// and its handler, which decodes and validates the arguments, calls the function and turns
// what it returns into the result.

func toolNames(e *emitter, d model.Decl) {
	t := d.(*model.Tool)
	e.allocID(t, "Call", model.GenPrefix+"Call"+goName(&t.Callable))
	e.allocID(t, "Input", model.GenPrefix+goName(&t.Callable)+"Input")
	if t.Out != model.OutStruct {
		return
	}
	if !e.sharedOutput(t) {
		e.allocID(t, "Output", model.GenPrefix+goName(&t.Callable)+"Output")
	} else if _, ok := e.ids[idKey{string(t.OutputSchema), "Output"}]; !ok {
		e.allocID(string(t.OutputSchema), "Output", model.GenPrefix+"Output"+t.OutType.Object.Name)
	}
}

// sharedOutput reports whether the tool's output schema is also another's: it is then
// declared once, before the first tool that has it, and named after its result's type.
func (e *emitter) sharedOutput(t *model.Tool) bool {
	return e.outputUsers[string(t.OutputSchema)] > 1
}

// outputID is the constant that holds the tool's output schema.
func (e *emitter) outputID(t *model.Tool) string {
	if e.sharedOutput(t) {
		return e.id(string(t.OutputSchema), "Output")
	}
	return e.id(t, "Output")
}

func registerTool(e *emitter, d model.Decl) jen.Code {
	return e.local("s").Dot("AddTool").Call(e.toolValue(d.(*model.Tool)))
}

func toolCode(e *emitter, ds []model.Decl) []jen.Code {
	var out []jen.Code
	for _, d := range ds {
		t := d.(*model.Tool)
		out = append(out, e.schemas(t)...)
		out = append(out, e.call(t))
	}
	return out
}

// taskSupport names the runtime's constant for each value of the task option.
var taskSupport = map[string]string{"optional": "TaskOptional", "required": "TaskRequired", "deferred": "TaskDeferred"}

// toolValue emits the mcp.Tool literal of one tool, fields in the order a reader wants them.
func (e *emitter) toolValue(t *model.Tool) jen.Code {
	fields := optionalFields([]jen.Code{field("Name", jen.Lit(t.Name))}, "Title", t.Title, "Description", t.Description)
	fields = append(fields, field("InputSchema", jen.Id(e.id(t, "Input"))))
	if t.Out == model.OutStruct {
		fields = append(fields, field("OutputSchema", jen.Id(e.outputID(t))))
	}
	var hints []jen.Code
	for _, h := range []struct {
		name string
		v    *bool
	}{{"ReadOnlyHint", t.Hints.ReadOnly}, {"DestructiveHint", t.Hints.Destructive}, {"IdempotentHint", t.Hints.Idempotent}, {"OpenWorldHint", t.Hints.OpenWorld}} {
		if h.v != nil {
			hints = append(hints, field(h.name, jen.Qual(model.RuntimePath, "Ptr").Call(jen.Lit(*h.v))))
		}
	}
	if len(hints) > 0 {
		fields = append(fields, field("Annotations", jen.Qual(model.RuntimePath, "ToolAnnotations").Values(hints...)))
	}
	fields = appendScopes(fields, t.Scopes)
	fields = appendIcons(fields, t.Icons)
	if t.Task != "" {
		fields = append(fields, field("Task", jen.Qual(model.RuntimePath, taskSupport[t.Task])))
	}
	var handler jen.Code = jen.Id(e.id(t, "Call"))
	if t.Recv != nil {
		handler = jen.Func().Params(e.local("ctx").Qual("context", "Context"), e.local("c").Op("*").Qual(model.RuntimePath, "ToolCall")).Block(
			jen.Id(e.id(t, "Call")).Call(e.local("ctx"), e.local("c"), jen.Id(e.recvParams[t.Recv])),
		)
	}
	fields = append(fields, field("Handler", handler))
	return multiLine(jen.Qual(model.RuntimePath, "Tool"), fields...)
}

// schemas emits the tool's JSON Schemas as constants, written into the file as they are
// (verbatimCode): a raw string literal that spans lines is formatted as it is, and so is the
// declaration that holds one per line. An output schema several tools share is declared by
// the first of them, under its own name.
func (e *emitter) schemas(t *model.Tool) []jen.Code {
	var code []jen.Code
	defs := []string{e.id(t, "Input"), string(t.InputSchema)}
	if t.Out == model.OutStruct {
		name, text := e.outputID(t), string(t.OutputSchema)
		switch {
		case !e.sharedOutput(t):
			defs = append(defs, name, text)
		case !e.declared[name]:
			e.declared[name] = true
			code = append(code, e.constants(fmt.Sprintf("The output schema of the %d tools whose result is %s.",
				e.outputUsers[text], t.OutType.Object.Name), false, name, text))
		}
	}
	return append(code, e.constants(fmt.Sprintf("JSON Schemas of tool %s.", t.Name), true, defs...))
}

// constants declares string constants (name, value, name, value...), each value a raw
// string literal, under a doc comment; in a group, unless it is one shared output schema.
func (e *emitter) constants(doc string, group bool, defs ...string) jen.Code {
	multiLine := true
	var specs []jen.Code
	for i := 0; i < len(defs); i += 2 {
		multiLine = multiLine && strings.Contains(defs[i+1], "\n")
		specs = append(specs, jen.Id(defs[i]).Op("=").Op("`"+defs[i+1]+"`"))
	}
	if !multiLine { // gofmt aligns values of one line: let it
		if !group {
			return jen.Comment(doc).Line().Const().Add(specs[0])
		}
		return jen.Comment(doc).Line().Const().Defs(specs...)
	}
	var b strings.Builder
	b.WriteString("// " + doc + "\n")
	if !group {
		b.WriteString("const " + defs[0] + " = `" + defs[1] + "`")
		return e.verbatimCode(b.String())
	}
	b.WriteString("const (\n")
	for i := 0; i < len(defs); i += 2 {
		b.WriteString("\t" + defs[i] + " = `" + defs[i+1] + "`\n")
	}
	b.WriteString(")")
	return e.verbatimCode(b.String())
}

// decodeInput emits the steps every handler takes with its input (arguments, variables):
// decode it into in with the input type's decoder (or its own UnmarshalJSON, or check that it
// is empty when there is no input type), then ask whether it was valid and hand the error to
// fail, which says what the kind of handler does with it.
func (e *emitter) decodeInput(in *schema.Type, fail ...jen.Code) []jen.Code {
	var body []jen.Code
	switch {
	case in == nil:
		body = append(body, e.inputDecoder().Dot("EmptyObject").Call())
	case in.Kind == schema.Custom:
		// A type with its own JSON reads it, against the schema it declares.
		body = append(body, jen.Var().Add(e.local("in")).Add(e.typ(in.Go)), e.local("args").Dot("Unmarshal").Call(jen.Op("&").Add(e.local("in"))))
	default:
		body = append(body, jen.Var().Add(e.local("in")).Add(e.typ(in.Go)),
			jen.Id(e.id(in.Object, "Decode")).Call(e.inputDecoder(), jen.Op("&").Add(e.local("in"))))
	}
	return append(body, jen.If(e.local("err").Op(":=").Add(e.local("args")).Dot("Err").Call(), e.local("err").Op("!=").Nil()).Block(fail...))
}

// inputDecoder emits the decoder of the handler's input, args.
func (e *emitter) inputDecoder() *jen.Statement {
	return jen.Qual(model.ContractPath, "Decoder").Call(e.local("args"))
}

// call emits the handler of one tool: decode and validate the arguments, call the function,
// turn what it returns into the result.
func (e *emitter) call(t *model.Tool) jen.Code {
	params := []jen.Code{e.ctxParam(&t.Callable), e.local("c").Op("*").Qual(model.RuntimePath, "ToolCall")}
	params = append(params, e.recvParam(&t.Callable)...)
	body := []jen.Code{e.local("args").Op(":=").Add(e.local("c")).Dot("Arguments").Call()}
	body = append(body, e.decodeInput(t.In, e.local("c").Dot("ReturnError").Call(e.local("err")), jen.Return())...)
	var args []jen.Code
	if t.In != nil {
		args = append(args, e.argument("in", t.InPointer))
	}

	invoke := e.invoke(&t.Callable, args...)
	switch {
	case t.Out == model.OutNone && !t.Err:
		body = append(body, invoke)
	case t.Out == model.OutNone:
		body = append(body, jen.If(e.local("err").Op(":=").Add(invoke), e.local("err").Op("!=").Nil()).Block(
			e.local("c").Dot("ReturnError").Call(e.local("err")),
		))
	case t.Err:
		body = append(body,
			jen.List(e.local("out"), e.local("err")).Op(":=").Add(invoke),
			jen.If(e.local("err").Op("!=").Nil()).Block(e.local("c").Dot("ReturnError").Call(e.local("err")), jen.Return()),
		)
		body = append(body, e.result(t)...)
	default:
		body = append(body, e.local("out").Op(":=").Add(invoke))
		body = append(body, e.result(t)...)
	}
	name := e.id(t, "Call")
	return jen.Comment(fmt.Sprintf("%s serves tool %s.", name, t.Name)).Line().Func().Id(name).Params(params...).Block(body...)
}

// result emits what sets the call's result from out.
func (e *emitter) result(t *model.Tool) []jen.Code {
	c := e.local("c")
	switch t.Out {
	case model.OutStruct:
		obj := t.OutType.Deref().Object
		value := jen.Op("&").Add(e.local("out"))
		var out []jen.Code
		if t.OutPointer {
			value = e.local("out")
			out = append(out, jen.If(e.local("out").Op("==").Nil()).Block(
				c.Clone().Dot("ReturnError").Call(jen.Qual(model.ContractPath, "ErrNilResult")),
				jen.Return(),
			))
		}
		if e.checked[obj] {
			out = append(out,
				jen.Id(e.id(obj, "Check")).Call(jen.Qual(model.ContractPath, "Checker").Call(c.Clone()), value.Clone()),
				jen.If(jen.Op("!").Qual(model.ContractPath, "ResultOK").Call(c.Clone())).Block(jen.Return()),
			)
		}
		out = append(out, jen.Id(e.id(obj, "Encode")).Call(jen.Qual(model.ContractPath, "Structured").Call(c.Clone()), value))
		switch t.Text {
		case model.TextAppend:
			// The type writes its own text block, into a buffer the call reuses.
			out = append(out, jen.Qual(model.ContractPath, "SetText").Call(c.Clone(), e.local("out").Dot(model.TextAppend).Call(jen.Qual(model.ContractPath, "TextBuffer").Call(c.Clone()))))
		case model.TextString:
			out = append(out, jen.Qual(model.ContractPath, "SetText").Call(c.Clone(), jen.Append(jen.Qual(model.ContractPath, "TextBuffer").Call(c.Clone()), e.local("out").Dot(model.TextString).Call().Op("..."))))
		}
		if t.IsError {
			// The value says it reports a failure: an error result, with its data.
			out = append(out, jen.If(e.local("out").Dot(model.IsErrorMethod).Call()).Block(jen.Qual(model.ContractPath, "SetError").Call(c.Clone())))
		}
		return out
	case model.OutText:
		return []jen.Code{c.Dot("ReturnText").Call(e.convert(e.local("out"), t.OutGo, types.Typ[types.String]))}
	case model.OutContent:
		return []jen.Code{c.Dot("ReturnContent").Call(e.local("out"))}
	case model.OutContents:
		return []jen.Code{c.Dot("ReturnContent").Call(e.local("out").Op("..."))}
	case model.OutResult:
		if t.OutPointer {
			return []jen.Code{c.Dot("ReturnResult").Call(e.local("out"))}
		}
		return []jen.Code{c.Dot("ReturnResult").Call(jen.Op("&").Add(e.local("out")))}
	}
	return nil
}
