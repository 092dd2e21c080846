package emit

import (
	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// The generated code of an elicitation form: its requested schema, and AddForm in
// RegisterMCP with the schema and the struct's decoder, which checks the user's answer.

func formNames(e *emitter, d model.Decl) {
	o := d.(*model.Form).Type.Object
	e.allocID(o, "Form", model.GenPrefix+o.Name+"Form")
}

func registerForm(e *emitter, d model.Decl) jen.Code {
	o := d.(*model.Form).Type.Object
	return jen.Qual(model.ContractPath, "AddForm").Call(e.local("s"), jen.Id(e.id(o, "Form")), jen.Id(e.id(o, "Decode")))
}

// formCode emits the requested schemas of all forms in one block of constants.
func formCode(e *emitter, ds []model.Decl) []jen.Code {
	var defs []jen.Code
	for _, d := range ds {
		t := d.(*model.Form).Type
		defs = append(defs, jen.Id(e.id(t.Object, "Form")).Op("=").Op("`"+string(schema.RenderForm(t))+"`"))
	}
	return []jen.Code{jen.Comment("Requested schemas of the elicitation forms (mcp.Elicit).").Line().Const().Defs(defs...)}
}
