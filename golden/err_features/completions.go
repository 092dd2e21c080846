package errfeatures

// CompleteSum completes prompt sum, which is reported for its own mistakes: the completion
// is not reported for naming it.
//
//mcp:complete prompt=sum arg=n
func CompleteSum(v string) []string { return nil }

// CompleteMissing completes a template that is reported for its own mistakes.
//
//mcp:complete resource="items://{id}/{rev}" arg=id
func CompleteMissing(v string) []string { return nil }

// CompleteFixed completes a resource that is no template.
//
//mcp:complete resource="config://app" arg=id
func CompleteFixed(v string) []string { return nil }

// GreetArgs are the arguments of a prompt.
type GreetArgs struct {
	Name string `json:"name"`
}

// Greet is a prompt without mistakes.
//
//mcp:prompt
func Greet(in GreetArgs) string { return "Hello, " + in.Name }

// Names is a list of names: a completion may return it.
type Names []string

// CompleteName completes its argument.
//
//mcp:complete prompt=greet arg=name
func CompleteName(v string) Names { return nil }

// CompleteNameAgain completes the same argument.
//
//mcp:complete prompt=greet arg=name
func CompleteNameAgain(v string) []string { return nil }

// Counts returns numbers.
//
//mcp:complete prompt=greet arg=name
func Counts(v string) ([]int, error) { return nil, nil }

// Silence returns nothing.
//
//mcp:complete prompt=greet arg=name
func Silence(v string) {}

// Both is a tool and a prompt.
//
//mcp:tool
//mcp:prompt
func Both() string { return "" }

// Twice is a tool twice.
//
//mcp:tool
//mcp:tool again
func Twice2() string { return "" }

// Thing serves a template.
//
//mcp:resource things://{id}
func Thing(in struct {
	ID string `json:"id"`
}) string {
	return ""
}

// ThingByName serves the same URIs, with another variable name.
//
//mcp:resource things://{name}
func ThingByName(in struct {
	Name string `json:"name"`
}) string {
	return ""
}

// More completions of the same argument: each is reported against the first in the source,
// however many there are (a sort that is not stable would name another one).

//mcp:complete prompt=greet arg=name
func CompleteNameAgain3(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain4(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain5(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain6(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain7(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain8(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain9(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain10(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain11(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain12(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain13(v string) []string { return nil }

//mcp:complete prompt=greet arg=name
func CompleteNameAgain14(v string) []string { return nil }
