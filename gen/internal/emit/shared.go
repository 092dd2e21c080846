package emit

import (
	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/model"
)

// What the handlers of every kind share: calling the user's function, the receiver of a
// method, and composite literals written for reading.

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

// handler is the generated function that serves an annotated function; for a method, a
// closure that passes it the receiver RegisterMCP was given.
func (e *emitter) handler(name string, c *model.Callable, params, results, args []jen.Code) jen.Code {
	if c.Recv == nil {
		return jen.Id(name)
	}
	return jen.Func().Params(params...).Params(results...).Block(
		jen.Return(jen.Id(name).Call(append(args, jen.Id(e.recvParams[c.Recv]))...)),
	)
}

// invoke calls the user's function with the context (if it takes one) and args.
func (e *emitter) invoke(c *model.Callable, args ...jen.Code) *jen.Statement {
	var all []jen.Code
	if c.Ctx {
		all = append(all, e.local("ctx"))
	}
	all = append(all, args...)
	if c.Recv != nil {
		return e.local("recv").Dot(c.Func.Name()).Call(all...)
	}
	return jen.Id(c.Func.Name()).Call(all...)
}

// callAndCheck calls the user's function and returns its error, if it has one, as the
// handler's second result; out is then the function's result.
func (e *emitter) callAndCheck(c *model.Callable, args ...jen.Code) []jen.Code {
	if !c.Err {
		return []jen.Code{e.local("out").Op(":=").Add(e.invoke(c, args...))}
	}
	return []jen.Code{
		jen.List(e.local("out"), e.local("err")).Op(":=").Add(e.invoke(c, args...)),
		jen.If(e.local("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), e.local("err"))),
	}
}

func (e *emitter) ctxParam(c *model.Callable) jen.Code {
	if c.Ctx {
		return e.local("ctx").Qual("context", "Context")
	}
	return jen.Id("_").Qual("context", "Context")
}

// recvParam is the receiver parameter of a method's handler.
func (e *emitter) recvParam(c *model.Callable) []jen.Code {
	if c.Recv == nil {
		return nil
	}
	return []jen.Code{e.local("recv").Add(e.recvType(c.Recv))}
}

// argument passes a local to the user's function: by address when it takes a pointer.
func (e *emitter) argument(name string, pointer bool) jen.Code {
	if pointer {
		return jen.Op("&").Add(e.local(name))
	}
	return e.local(name)
}

// appendIcons adds the Icons field of a tool, prompt or resource that has some.
func appendIcons(fields []jen.Code, icons []model.Icon) []jen.Code {
	if len(icons) == 0 {
		return fields
	}
	var lits []jen.Code
	for _, ic := range icons {
		f := []jen.Code{field("Src", jen.Lit(ic.Src))}
		f = optionalFields(f, "MIMEType", ic.MIMEType)
		if len(ic.Sizes) > 0 {
			var sizes []jen.Code
			for _, s := range ic.Sizes {
				sizes = append(sizes, jen.Lit(s))
			}
			f = append(f, field("Sizes", jen.Index().String().Values(sizes...)))
		}
		switch ic.Theme {
		case "light":
			f = append(f, field("Theme", jen.Qual(model.RuntimePath, "IconLight")))
		case "dark":
			f = append(f, field("Theme", jen.Qual(model.RuntimePath, "IconDark")))
		}
		lits = append(lits, jen.Values(f...))
	}
	return append(fields, field("Icons", jen.Index().Qual(model.RuntimePath, "Icon").Values(lits...)))
}

// appendScopes adds the Scopes field of a tool, prompt or resource that has some.
func appendScopes(fields []jen.Code, scopes []string) []jen.Code {
	if len(scopes) == 0 {
		return fields
	}
	var lits []jen.Code
	for _, s := range scopes {
		lits = append(lits, jen.Lit(s))
	}
	return append(fields, field("Scopes", jen.Index().String().Values(lits...)))
}
