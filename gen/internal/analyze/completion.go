package analyze

import (
	"go/ast"
	"go/types"
	"slices"

	"github.com/mcpgen/mcpgen/gen/internal/directive"
	"github.com/mcpgen/mcpgen/gen/internal/model"
)

var completionRole = role{
	word:    "completion",
	takes:   "a completion takes (ctx context.Context, value string) or (ctx context.Context, req mcp.CompletionRequest); ctx may be left out",
	returns: "a completion returns ([]string, error) or []string",
	argOK: func(t types.Type) bool {
		if name, ok := runtimeType(t); ok && name == "CompletionRequest" {
			return true
		}
		b, ok := t.(*types.Basic)
		return ok && b.Kind() == types.String
	},
	argWant: "a string (what the user typed) or an mcp.CompletionRequest",
	argHint: "take the partial value as a string, or an mcp.CompletionRequest for the other arguments too",
}

// completeOptions are the options of //mcp:complete: what it completes, a prompt's
// argument or a resource template's variable.
var completeOptions = &options[model.Completion]{
	verb: "complete",
	list: []option[model.Completion]{
		{key: "prompt", set: func(c *model.Completion, v string) { c.Prompt = v }},
		{key: "resource", aliases: []string{"template"}, set: func(c *model.Completion, v string) { c.Template = v }},
		{key: "arg", aliases: []string{"argument"}, set: func(c *model.Completion, v string) { c.Argument = v }},
	},
	usage: completeUsage,
}

const completeUsage = `write //mcp:complete prompt=NAME arg=ARGUMENT, or //mcp:complete resource="TEMPLATE" arg=VARIABLE`

// completion checks a function annotated with //mcp:complete.
func (a *analyzer) completion(fd *ast.FuncDecl, d directive.Directive) {
	c := &model.Completion{}
	completeOptions.parse(a, d, c)
	if (c.Prompt == "") == (c.Template == "") || c.Argument == "" {
		a.diags.Hintf(d.Pos, completeUsage,
			"//mcp:complete needs a prompt or a resource template (one of them) and an argument")
		return
	}
	s, ok := a.callable(fd, d, completionRole)
	if !ok {
		return
	}
	c.Callable = s.Callable
	if s.arg == nil {
		a.diags.Hintf(d.Pos, completionRole.takes, "completion %s takes no value to complete", fd.Name.Name)
		return
	}
	_, c.Request = runtimeType(s.arg)
	if s.out == nil {
		a.diags.Hintf(d.Pos, completionRole.returns, "completion %s returns no values; it must return []string", fd.Name.Name)
		return
	}
	if sl, isSlice := s.out.Underlying().(*types.Slice); !isSlice || !isString(sl.Elem()) {
		a.diags.Hintf(s.outPos, completionRole.returns, "completion %s returns %s; it must return []string", fd.Name.Name, typeString(s.out))
		return
	}
	a.decls = append(a.decls, c)
}

func isString(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind() == types.String
}

// checkCompletions checks that each completion names a prompt argument or template variable
// of the package. A prompt or template that is declared but failed its own checks has been
// reported already, and its completions are not.
func (a *analyzer) checkCompletions() {
	seen := map[[3]string]*model.Completion{}
	for _, c := range of[*model.Completion](a.decls) {
		key := [3]string{c.Prompt, c.Template, c.Argument}
		if prev := seen[key]; prev != nil {
			a.diags.Hintf(c.Pos, "keep one of them; a completion may look at the other arguments with an mcp.CompletionRequest",
				"argument %s of %s has a completion already: %s at %s", c.Argument, orString(c.Prompt, c.Template), displayName(&prev.Callable), a.where(prev.Pos))
			continue
		}
		seen[key] = c
		var args []string
		found := false
		if c.Prompt != "" {
			for _, pr := range of[*model.Prompt](a.decls) {
				if pr.Name == c.Prompt {
					found = true
					if pr.In != nil {
						for _, f := range pr.In.Object.Fields {
							args = append(args, f.Name)
						}
					}
				}
			}
			if !found && !a.declared[promptTarget(c.Prompt)] { // else the prompt was reported
				a.diags.Errorf(c.Pos, "//mcp:complete: this package has no prompt %q", c.Prompt)
			}
			if !found {
				continue
			}
		} else {
			for _, r := range of[*model.Resource](a.decls) {
				if r.URI == c.Template && r.Template() {
					found = true
					args = r.Vars
				}
			}
			if !found && !a.declared[templateTarget(c.Template)] { // else the template was reported
				a.diags.Errorf(c.Pos, "//mcp:complete: this package has no resource template %q", c.Template)
			}
			if !found {
				continue
			}
		}
		if !slices.Contains(args, c.Argument) {
			a.diags.Errorf(c.Pos, "//mcp:complete: %s has no argument %q", orString(c.Prompt, c.Template), c.Argument)
		}
	}
}

// promptTarget and templateTarget name what a completion may complete, for analyzer.declared.
func promptTarget(name string) string  { return "prompt " + name }
func templateTarget(uri string) string { return "template " + uri }

func orString(a, b string) string {
	if a != "" {
		return "prompt " + a
	}
	return "resource template " + b
}
