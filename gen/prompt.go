package gen

import (
	"go/ast"
	"go/types"
	"slices"

	"github.com/mcpgen/mcpgen/gen/internal/schema"
	"github.com/mcpgen/mcpgen/internal/describe"
)

// Prompt is one function annotated with //mcp:prompt. Its arguments are the string fields
// of its argument struct.
type Prompt struct {
	Callable
	Name        string
	Title       string
	Description string
	In          *schema.Type
	InPointer   bool
	Out         PromptOut
	OutPointer  bool
	OutGo       types.Type
}

// PromptOut is what a prompt function returns.
type PromptOut int

const (
	PromptText     PromptOut = iota // a string: one user message
	PromptMessage                   // mcp.PromptMessage
	PromptMessages                  // []mcp.PromptMessage
	PromptResult                    // mcp.GetPromptResult, or a pointer to one
)

var promptRole = role{
	word:    "prompt",
	takes:   "a prompt takes (ctx context.Context, in T) with T a struct of string fields, its arguments; either may be left out",
	returns: "a prompt returns (T, error) or T, with T a string (one user message), an mcp.PromptMessage, a []mcp.PromptMessage or an mcp.GetPromptResult",
	argOK:   isStructOrPointer,
	argWant: "a struct or a pointer to a struct",
	argHint: "put the prompt's arguments in a struct of string fields",
}

// prompt checks a function annotated with //mcp:prompt.
func (p *pkgGen) prompt(fd *ast.FuncDecl, d directive) {
	pr := &Prompt{Name: snakeCase(fd.Name.Name), Description: describe.Description(fd.Name.Name, fd.Doc.Text())}
	for i, a := range d.args {
		switch {
		case i == 0 && !a.hasValue:
			pr.Name = a.key
		case a.key == "name" && a.hasValue:
			pr.Name = a.value
		case a.key == "title" && a.hasValue:
			pr.Title = a.value
		default:
			p.diags.Hintf(a.pos, `options are: a name first, then title="..."`, "unknown //mcp:prompt option %q", a.key)
		}
	}
	if !validToolName(pr.Name) {
		p.diags.Hintf(d.pos, "use 1 to 128 ASCII letters, digits, '_', '-' or '.'", "invalid prompt name %q", pr.Name)
	}
	p.declared[promptTarget(pr.Name)] = true
	s, ok := p.callable(fd, d, promptRole)
	if !ok {
		return
	}
	pr.Callable = s.Callable
	if s.arg != nil {
		_, pr.InPointer = types.Unalias(s.arg).(*types.Pointer)
		if pr.In = p.input(s.arg, s.argPos, "an argument of prompt "+pr.Name); pr.In == nil {
			return
		}
		for _, f := range pr.In.Object.Fields {
			if t := f.Type.Deref(); t.Kind != schema.String || t.Quoted {
				p.diags.Hintf(f.Pos, "use a string field (or *string for an optional argument); convert it in the function",
					"prompt argument %s has type %s, but prompt arguments are strings", f.Name, typeString(f.Type.Go))
				ok = false
			}
		}
	}
	if s.out == nil {
		p.diags.Hintf(d.pos, promptRole.returns, "prompt %s returns no messages", fd.Name.Name)
		return
	}
	if ok && p.promptOut(pr, fd, s) {
		p.prompts = append(p.prompts, pr)
	}
}

func (p *pkgGen) promptOut(pr *Prompt, fd *ast.FuncDecl, s signature) bool {
	pr.OutGo = s.out
	out := s.out
	if ptr, ok := types.Unalias(out).(*types.Pointer); ok {
		out, pr.OutPointer = ptr.Elem(), true
	}
	if name, ok := runtimeType(out); ok {
		switch {
		case name == "GetPromptResult":
			pr.Out = PromptResult
			return true
		case name == "PromptMessage" && !pr.OutPointer:
			pr.Out = PromptMessage
			return true
		}
	}
	if sl, ok := out.Underlying().(*types.Slice); ok && !pr.OutPointer {
		if name, ok := runtimeType(sl.Elem()); ok && name == "PromptMessage" {
			pr.Out = PromptMessages
			return true
		}
	}
	if b, ok := out.Underlying().(*types.Basic); ok && b.Kind() == types.String && !pr.OutPointer {
		pr.Out = PromptText
		return true
	}
	p.diags.Hintf(s.outPos, promptRole.returns, "prompt %s returns %s, which mcpgen cannot turn into prompt messages", fd.Name.Name, typeString(s.out))
	return false
}

// Completion is one function annotated with //mcp:complete: it suggests values for an
// argument of a prompt or a variable of a resource template.
type Completion struct {
	Callable
	Prompt   string // the prompt's name, or
	Template string // the resource template's URI template
	Argument string
	Request  bool // the function takes an mcp.CompletionRequest, not the partial value
}

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

// completion checks a function annotated with //mcp:complete.
func (p *pkgGen) completion(fd *ast.FuncDecl, d directive) {
	c := &Completion{}
	for _, a := range d.args {
		switch {
		case a.key == "prompt" && a.hasValue:
			c.Prompt = a.value
		case (a.key == "resource" || a.key == "template") && a.hasValue:
			c.Template = a.value
		case (a.key == "arg" || a.key == "argument") && a.hasValue:
			c.Argument = a.value
		default:
			p.diags.Hintf(a.pos, `write //mcp:complete prompt=NAME arg=ARGUMENT, or //mcp:complete resource="TEMPLATE" arg=VARIABLE`,
				"unknown //mcp:complete option %q", a.key)
		}
	}
	if (c.Prompt == "") == (c.Template == "") || c.Argument == "" {
		p.diags.Hintf(d.pos, `write //mcp:complete prompt=NAME arg=ARGUMENT, or //mcp:complete resource="TEMPLATE" arg=VARIABLE`,
			"//mcp:complete needs a prompt or a resource template (one of them) and an argument")
		return
	}
	s, ok := p.callable(fd, d, completionRole)
	if !ok {
		return
	}
	c.Callable = s.Callable
	if s.arg == nil {
		p.diags.Hintf(d.pos, completionRole.takes, "completion %s takes no value to complete", fd.Name.Name)
		return
	}
	_, c.Request = runtimeType(s.arg)
	if s.out == nil {
		p.diags.Hintf(d.pos, completionRole.returns, "completion %s returns no values; it must return []string", fd.Name.Name)
		return
	}
	if sl, isSlice := s.out.Underlying().(*types.Slice); !isSlice || !isString(sl.Elem()) {
		p.diags.Hintf(s.outPos, completionRole.returns, "completion %s returns %s; it must return []string", fd.Name.Name, typeString(s.out))
		return
	}
	p.completions = append(p.completions, c)
}

func isString(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind() == types.String
}

// checkCompletions checks that each completion names a prompt argument or template variable
// of the package. A prompt or template that is declared but failed its own checks has been
// reported already, and its completions are not.
func (p *pkgGen) checkCompletions() {
	seen := map[[3]string]*Completion{}
	for _, c := range p.completions {
		key := [3]string{c.Prompt, c.Template, c.Argument}
		if prev := seen[key]; prev != nil {
			p.diags.Hintf(c.Pos, "keep one of them; a completion may look at the other arguments with an mcp.CompletionRequest",
				"argument %s of %s has a completion already: %s at %s", c.Argument, orString(c.Prompt, c.Template), goDisplayName(&prev.Callable), p.where(prev.Pos))
			continue
		}
		seen[key] = c
		var args []string
		found := false
		if c.Prompt != "" {
			for _, pr := range p.prompts {
				if pr.Name == c.Prompt {
					found = true
					if pr.In != nil {
						for _, f := range pr.In.Object.Fields {
							args = append(args, f.Name)
						}
					}
				}
			}
			if !found && !p.declared[promptTarget(c.Prompt)] { // else the prompt was reported
				p.errorf(c.Pos, "//mcp:complete: this package has no prompt %q", c.Prompt)
			}
			if !found {
				continue
			}
		} else {
			for _, r := range p.resources {
				if r.URI == c.Template && r.Template() {
					found = true
					args = r.Vars
				}
			}
			if !found && !p.declared[templateTarget(c.Template)] { // else the template was reported
				p.errorf(c.Pos, "//mcp:complete: this package has no resource template %q", c.Template)
			}
			if !found {
				continue
			}
		}
		if !slices.Contains(args, c.Argument) {
			p.errorf(c.Pos, "//mcp:complete: %s has no argument %q", orString(c.Prompt, c.Template), c.Argument)
		}
	}
}

// promptTarget and templateTarget name what a completion may complete, for pkgGen.declared.
func promptTarget(name string) string  { return "prompt " + name }
func templateTarget(uri string) string { return "template " + uri }

func orString(a, b string) string {
	if a != "" {
		return "prompt " + a
	}
	return "resource template " + b
}
