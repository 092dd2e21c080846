package analyze

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/mcpgen/mcpgen/gen/internal/directive"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
	"github.com/mcpgen/mcpgen/internal/describe"
)

// role says what an annotated function becomes (a tool, a resource, ...): the word for it in
// messages, the signatures it may have, and which argument types it accepts.
type role struct {
	word    string
	takes   string                // the parameter shapes, as a hint
	returns string                // the result shapes, as a hint
	argOK   func(types.Type) bool // accepts the argument's type
	argWant string                // what argOK accepts, for the message
	argHint string
}

// input builds the Type of a struct read like a tool's arguments that is not one: a
// prompt's arguments, a template's variables, a form. Only tools/call mirrors arguments into
// headers, so a header tag is reported; use names the struct for that message. It returns
// nil (after reporting why) when the type cannot be used.
func (a *analyzer) input(t types.Type, pos token.Pos, use string) *schema.Type {
	in := a.builder.Object(t, pos)
	if in != nil {
		a.builder.CheckDirection(in, true)
		a.builder.RejectHeaders(in, use, "remove the tag: only the arguments of tools/call are mirrored into headers")
	}
	return in
}

// description is the description of the function fd annotated as a word ("tool"): its doc
// comment, without the directives. A model chooses a tool, a resource or a prompt by its
// description alone, so an empty one is an error rather than a silent "".
func (a *analyzer) description(fd *ast.FuncDecl, d directive.Directive, word string) string {
	desc := describe.Description(fd.Name.Name, fd.Doc.Text())
	if desc == "" {
		a.diags.Hintf(d.Pos, "add a doc comment; it is the description the model reads: // "+fd.Name.Name+" ...",
			"%s %s has no doc comment, so the model would get no description of it", word, fd.Name.Name)
	}
	return desc
}

// signature is a checked function: the Callable, and its argument and result besides the
// context and the error (nil when there are none).
type signature struct {
	model.Callable
	arg, out       types.Type
	argPos, outPos token.Pos
}

// callable checks the shape shared by every annotated function: an ordinary function or a
// method of a non-generic type, taking an optional context.Context and at most one more
// argument, returning at most one value and an optional error.
func (a *analyzer) callable(fd *ast.FuncDecl, d directive.Directive, r role) (signature, bool) {
	var s signature
	fn, ok := a.pkg.TypesInfo.Defs[fd.Name].(*types.Func)
	if !ok {
		return s, false
	}
	s.Func, s.Pos = fn, d.Pos
	sig := fn.Type().(*types.Signature)
	if fd.Type.TypeParams != nil && fd.Type.TypeParams.NumFields() > 0 {
		a.diags.Errorf(fd.Type.TypeParams.Pos(), "%s %s is generic; a %s must be an ordinary function or method", r.word, fd.Name.Name, r.word)
		return s, false
	}
	if sig.Recv() != nil && !a.receiver(&s.Callable, fd, sig.Recv(), r) {
		return s, false
	}
	okParams := a.params(&s, fd, sig, r)
	okResults := a.results(&s, fd, sig, r)
	return s, okParams && okResults
}

// receiver records the type whose method is annotated; RegisterMCP will take an instance of it.
func (a *analyzer) receiver(c *model.Callable, fd *ast.FuncDecl, recv *types.Var, r role) bool {
	rt := recv.Type()
	ptr, isPtr := rt.(*types.Pointer)
	if isPtr {
		rt = ptr.Elem()
	}
	named, ok := types.Unalias(rt).(*types.Named)
	if !ok {
		return false
	}
	if named.TypeParams().Len() > 0 {
		a.diags.Errorf(fd.Recv.Pos(), "%s %s is a method of generic type %s; methods of generic types cannot be %ss", r.word, fd.Name.Name, named.Obj().Name(), r.word)
		return false
	}
	rc := a.receivers[named.Obj()]
	if rc == nil {
		rc = &model.Receiver{Type: named}
		a.receivers[named.Obj()] = rc
	}
	rc.Pointer = rc.Pointer || isPtr
	c.Recv = rc
	return true
}

// params checks the parameters: an optional context.Context, then an optional argument.
func (a *analyzer) params(s *signature, fd *ast.FuncDecl, sig *types.Signature, r role) bool {
	params := sig.Params()
	pos := paramPositions(fd.Type.Params)
	if sig.Variadic() {
		a.diags.Hintf(pos[len(pos)-1], r.takes, "%s %s is variadic", r.word, fd.Name.Name)
		return false
	}
	n := params.Len()
	s.Ctx = n > 0 && isContext(params.At(0).Type())
	switch {
	case n > 2:
		a.diags.Hintf(pos[2], r.takes, "%s %s has too many parameters", r.word, fd.Name.Name)
		return false
	case n == 2 && !s.Ctx && isContext(params.At(1).Type()):
		a.diags.Hintf(pos[1], r.takes, "the context.Context of %s %s must be its first parameter, not its second", r.word, fd.Name.Name)
		return false
	case n == 2 && !s.Ctx:
		a.diags.Hintf(pos[0], r.takes, "the first parameter of %s %s must be a context.Context, not %s", r.word, fd.Name.Name, typeString(params.At(0).Type()))
		return false
	case n == 0 || n == 1 && s.Ctx:
		return true
	}
	i := n - 1
	arg := params.At(i).Type()
	if isContext(arg) {
		a.diags.Hintf(pos[i], r.takes, "%s %s takes a second context.Context", r.word, fd.Name.Name)
		return false
	}
	if !r.argOK(arg) {
		a.diags.Hintf(pos[i], r.argHint, "the argument of %s %s must be %s, not %s", r.word, fd.Name.Name, r.argWant, typeString(arg))
		return false
	}
	s.arg, s.argPos = arg, pos[i]
	return true
}

// results checks the results: nothing, an error, a value, or a value and an error.
func (a *analyzer) results(s *signature, fd *ast.FuncDecl, sig *types.Signature, r role) bool {
	res := sig.Results()
	var pos []token.Pos
	if fd.Type.Results != nil {
		pos = paramPositions(fd.Type.Results)
	}
	if res.Len() == 2 && !isError(res.At(1).Type()) {
		a.diags.Hintf(pos[1], r.returns, "the last result of %s %s must be an error, not %s", r.word, fd.Name.Name, typeString(res.At(1).Type()))
		return false
	}
	n := res.Len()
	if n > 0 && isError(res.At(n-1).Type()) {
		s.Err = true
		n--
	}
	switch n {
	case 0:
		return true
	case 1:
		s.out, s.outPos = res.At(0).Type(), pos[0]
		return true
	}
	a.diags.Hintf(pos[0], r.returns, "%s %s returns too many results", r.word, fd.Name.Name)
	return false
}
