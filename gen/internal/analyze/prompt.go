package analyze

import (
	"go/ast"
	"go/types"

	"github.com/mcpgen/mcpgen/gen/internal/directive"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

var promptRole = role{
	word:    "prompt",
	takes:   "a prompt takes (ctx context.Context, in T) with T a struct of string fields, its arguments; either may be left out",
	returns: "a prompt returns (T, error) or T, with T a string (one user message), an mcp.PromptMessage, a []mcp.PromptMessage or an mcp.GetPromptResult",
	argOK:   isStructOrPointer,
	argWant: "a struct or a pointer to a struct",
	argHint: "put the prompt's arguments in a struct of string fields",
}

// promptOptions are the options of //mcp:prompt: a name first, then a title.
var promptOptions = &options[model.Prompt]{
	verb:  "prompt",
	first: &firstArg[model.Prompt]{what: "name", noun: "prompt", takes: bare, set: func(p *model.Prompt, a directive.Arg) { p.Name = a.Key }},
	list: []option[model.Prompt]{
		{key: "name", set: func(p *model.Prompt, v string) { p.Name = v }},
		{key: "title", set: func(p *model.Prompt, v string) { p.Title = v }},
		scopesOption(func(p *model.Prompt, s []string) { p.Scopes = s }),
		iconOption(func(p *model.Prompt, i model.Icon) { p.Icons = append(p.Icons, i) }),
	},
	usage: `options are: a name first, then title="...", scopes="...", icon="..."`,
}

// prompt checks a function annotated with //mcp:prompt.
func (a *analyzer) prompt(fd *ast.FuncDecl, d directive.Directive) {
	pr := &model.Prompt{Name: snakeCase(fd.Name.Name), Description: a.description(fd, d, "prompt")}
	promptOptions.parse(a, d, pr)
	if !validName(pr.Name) {
		a.diags.Hintf(d.Pos, "use 1 to 128 ASCII letters, digits, '_', '-' or '.'", "invalid prompt name %q", pr.Name)
	}
	a.declared[promptTarget(pr.Name)] = true
	s, ok := a.callable(fd, d, promptRole)
	if !ok {
		return
	}
	pr.Callable = s.Callable
	if s.arg != nil {
		_, pr.InPointer = types.Unalias(s.arg).(*types.Pointer)
		if pr.In = a.input(s.arg, s.argPos, "an argument of prompt "+pr.Name); pr.In == nil {
			return
		}
		ok = a.noRest(pr.In.Object, "prompt "+pr.Name+"'s arguments")
		for _, f := range pr.In.Object.Fields {
			if t := f.Type.Deref(); t.Kind != schema.String || t.Quoted || f.Type.Kind == schema.ThreeStates {
				a.diags.Hintf(f.Pos, "use a string field (or *string for an optional argument); convert it in the function",
					"prompt argument %s has type %s, but prompt arguments are strings", f.Name, typeString(f.Type.Go))
				ok = false
			}
		}
	}
	if s.out == nil {
		a.diags.Hintf(d.Pos, promptRole.returns, "prompt %s returns no messages", fd.Name.Name)
		return
	}
	if ok && a.promptOut(pr, fd, s) {
		a.decls = append(a.decls, pr)
	}
}

func (a *analyzer) promptOut(pr *model.Prompt, fd *ast.FuncDecl, s signature) bool {
	pr.OutGo = s.out
	out := s.out
	if ptr, ok := types.Unalias(out).(*types.Pointer); ok {
		out, pr.OutPointer = ptr.Elem(), true
	}
	if name, ok := runtimeType(out); ok {
		switch {
		case name == "GetPromptResult":
			pr.Out = model.PromptResult
			return true
		case name == "PromptMessage" && !pr.OutPointer:
			pr.Out = model.PromptMessage
			return true
		}
	}
	if sl, ok := out.Underlying().(*types.Slice); ok && !pr.OutPointer {
		if name, ok := runtimeType(sl.Elem()); ok && name == "PromptMessage" {
			pr.Out = model.PromptMessages
			return true
		}
	}
	if b, ok := out.Underlying().(*types.Basic); ok && b.Kind() == types.String && !pr.OutPointer {
		pr.Out = model.PromptText
		return true
	}
	a.diags.Hintf(s.outPos, promptRole.returns, "prompt %s returns %s, which mcpgen cannot turn into prompt messages", fd.Name.Name, typeString(s.out))
	return false
}
