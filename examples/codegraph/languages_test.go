package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A Python project: indexed by tree-sitter (a directory outside any Go module was refused
// before), with Python's qualified names, each call saying how it was resolved.
func TestPythonProject(t *testing.T) {
	c, _ := inProcess(t, nil)
	dir := copyTree(t, "testdata/pyshop")
	rep := call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	if rep.Packages != 4 || rep.Indexed != 4 {
		t.Errorf("index_repository = %+v", rep)
	}
	r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "UserService.create_user"})
	var got []string
	for _, cl := range r.Callers {
		for _, s := range cl.Sites {
			got = append(got, fmt.Sprintf("%s %s:%d %s", cl.Caller, s.File, s.Line, s.Resolution))
		}
	}
	slices.Sort(got)
	want := []string{
		"shop.billing.invoice shop/billing.py:9 scope",
		"shop.users.AdminService.create_admin shop/users.py:26 scope",
	}
	if r.QualifiedName != "shop.users.UserService.create_user" || !slices.Equal(got, want) {
		t.Errorf("find_callers UserService.create_user = %s %q, want %q", r.QualifiedName, got, want)
	}
	callees := call[CalleesResult](t, c, "find_callees", map[string]any{"qualified_name": "shop.billing.invoice_admin"})
	got = nil
	for _, ce := range callees.Callees {
		got = append(got, ce.Callee+" "+ce.Sites[0].Resolution)
	}
	slices.Sort(got)
	if want := []string{"shop.billing.invoice scope", "shop.users.AdminService scope", "shop.users.AdminService.create_admin scope"}; !slices.Equal(got, want) {
		t.Errorf("find_callees invoice_admin = %q, want %q", got, want)
	}
	s := call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": "UserService.create_user"})
	if !s.Found || s.Kind != "method" || s.FilePath != "shop/users.py" || s.LineStart != 14 || !strings.Contains(s.SourceCode, "return User(name)") ||
		s.Docstring != "Makes a user, once its name is valid.\n" {
		t.Errorf("get_code_snippet = %+v", s)
	}
	q := call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "Show me all classes that contain 'user' in their name"})
	if got := names(q.Results, "qualified_name"); !slices.Equal(got, []string{"shop.users.User", "shop.users.UserService"}) {
		t.Errorf("classes containing user: %q", got)
	}
	im := call[ImportsResult](t, c, "find_importers", map[string]any{"package": "shop.users"})
	got = nil
	for _, i := range im.Imports {
		got = append(got, i.Package)
	}
	if want := []string{"shop", "shop.billing"}; !slices.Equal(got, want) {
		t.Errorf("find_importers shop.users = %q, want %q", got, want)
	}
}

// A TypeScript and JavaScript project: modules named by their files, relative imports
// through a directory's index, typed locals.
func TestTypeScriptProject(t *testing.T) {
	c, _ := inProcess(t, nil)
	dir := copyTree(t, "testdata/tsapp")
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "UserService.createUser"})
	var got []string
	for _, cl := range r.Callers {
		for _, s := range cl.Sites {
			got = append(got, fmt.Sprintf("%s %s:%d %s", cl.Caller, s.File, s.Line, s.Resolution))
		}
	}
	if want := []string{"src/main.signUp src/main.js:5 scope"}; r.QualifiedName != "src/users/service.UserService.createUser" || !slices.Equal(got, want) {
		t.Errorf("find_callers UserService.createUser = %s %q, want %q", r.QualifiedName, got, want)
	}
	callees := call[CalleesResult](t, c, "find_callees", map[string]any{"qualified_name": "UserService.createUser"})
	got = nil
	for _, ce := range callees.Callees {
		got = append(got, ce.Callee+" "+ce.Sites[0].Resolution)
	}
	slices.Sort(got)
	if want := []string{"src/users/service.UserService.validate scope", "src/users/user.User scope"}; !slices.Equal(got, want) {
		t.Errorf("find_callees createUser = %q, want %q", got, want)
	}
	s := call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": "UserService"})
	if !s.Found || s.Kind != "class" || s.Docstring != "Creates users.\n" || s.FilePath != "src/users/service.ts" {
		t.Errorf("get_code_snippet UserService = %+v", s)
	}
}

// The seed's own example, in Java: packages as units, classes in a module, a method's
// snippet by its qualified name, and callers through a field's declared type.
func TestJavaProject(t *testing.T) {
	c, _ := inProcess(t, nil)
	dir := copyTree(t, "testdata/javaapp")
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	s := call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": "com.example.user.UserService.createUser"})
	if !s.Found || s.FilePath != "src/main/java/com/example/user/UserService.java" || s.LineStart != 5 || s.Docstring != "Creates a new user\n" ||
		!strings.Contains(s.SourceCode, "return new User(name);") {
		t.Errorf("get_code_snippet = %+v", s)
	}
	q := call[QueryResult](t, c, "query_code_graph", map[string]any{"natural_language_query": "Find all classes in the user module"})
	if got, want := names(q.Results, "qualified_name"), []string{"com.example.user.User", "com.example.user.UserController", "com.example.user.UserService"}; !slices.Equal(got, want) {
		t.Errorf("classes in the user module = %q, want %q", got, want)
	}
	r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "UserService.createUser"})
	if r.Count != 1 || r.Callers[0].Caller != "com.example.user.UserController.signUp" || r.Callers[0].Sites[0].Resolution != "scope" {
		t.Errorf("find_callers createUser = %+v", r)
	}
	callees := call[CalleesResult](t, c, "find_callees", map[string]any{"qualified_name": "UserService.createUser"})
	var got []string
	for _, ce := range callees.Callees {
		got = append(got, ce.Callee)
	}
	slices.Sort(got)
	if want := []string{"com.example.user.User.<init>", "com.example.user.UserService.validate"}; !slices.Equal(got, want) {
		t.Errorf("find_callees createUser = %q, want %q", got, want)
	}
}

// A Rust crate: modules by path from the crate (its name from Cargo.toml), items qualified
// with "::", methods of impl blocks under their type.
func TestRustProject(t *testing.T) {
	c, _ := inProcess(t, nil)
	dir := copyTree(t, "testdata/rustapp")
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "UserService::create_user"})
	if r.QualifiedName != "shop::users::UserService::create_user" || r.Count != 1 || r.Callers[0].Caller != "shop::main" || r.Callers[0].Sites[0].Resolution != "name" {
		t.Errorf("find_callers create_user = %+v", r)
	}
	callees := call[CalleesResult](t, c, "find_callees", map[string]any{"qualified_name": "shop::users::UserService::create_user"})
	var got []string
	for _, ce := range callees.Callees {
		got = append(got, ce.Callee+" "+ce.Sites[0].Resolution)
	}
	slices.Sort(got)
	if want := []string{"shop::users::User::new scope", "shop::users::UserService::validate scope"}; !slices.Equal(got, want) {
		t.Errorf("find_callees create_user = %q, want %q", got, want)
	}
	// names.len() is Vec's: a method the standard library's types have is not guessed by name.
	if r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "UserService::len"}); r.Count != 0 {
		t.Errorf("find_callers UserService::len = %+v, want none", r)
	}
	s := call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": "User::new"})
	if !s.Found || s.Kind != "method" || s.Docstring != "Makes a user.\n" || s.FilePath != "src/users.rs" {
		t.Errorf("get_code_snippet User::new = %+v", s)
	}
}

// C and C++: the linker's names, qualified by namespaces and classes; a call resolves to a
// definition in its file, to its class's methods, or by name across files.
func TestCProject(t *testing.T) {
	c, _ := inProcess(t, nil)
	dir := copyTree(t, "testdata/capp")
	call[IndexReport](t, c, "index_repository", map[string]any{"path": dir})
	r := call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "add"})
	var got []string
	for _, cl := range r.Callers {
		for _, s := range cl.Sites {
			got = append(got, fmt.Sprintf("%s %s:%d %s", cl.Caller, s.File, s.Line, s.Resolution))
		}
	}
	slices.Sort(got)
	if want := []string{"main src/main.c:7 name", "twice src/util.c:6 scope"}; !slices.Equal(got, want) {
		t.Errorf("find_callers add = %q, want %q", got, want)
	}
	r = call[CallersResult](t, c, "find_callers", map[string]any{"qualified_name": "geo::Square::area"})
	got = nil
	for _, cl := range r.Callers {
		for _, s := range cl.Sites {
			got = append(got, fmt.Sprintf("%s %s:%d %s", cl.Caller, s.File, s.Line, s.Resolution))
		}
	}
	slices.Sort(got)
	if want := []string{"geo::Square::scaled src/shapes.cpp:6 scope", "geo::total src/shapes.cpp:13 name"}; !slices.Equal(got, want) {
		t.Errorf("find_callers Square::area = %q, want %q", got, want)
	}
	s := call[CodeSnippet](t, c, "get_code_snippet", map[string]any{"qualified_name": "add"})
	if !s.Found || s.FilePath != "src/util.c" || s.Docstring != "add adds.\n" {
		t.Errorf("get_code_snippet add = %+v", s)
	}
}
