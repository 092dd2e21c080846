package mcpfunc_test

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcpfunc"
)

// GreetInput is what greet takes: the tags say what the schema says.
type GreetInput struct {
	Name  string `json:"name" jsonschema:"minLength=1,description=Who to greet"`
	Times int    `json:"times,omitempty" jsonschema:"minimum=1,maximum=3,description=How many times"`
}

// Greeting is what greet returns: structured content.
type Greeting struct {
	Text string `json:"text"`
}

func Greet(ctx context.Context, in GreetInput) (Greeting, error) {
	text := "Hello, " + in.Name + "!"
	for i := 1; i < in.Times; i++ {
		text += " Hello again!"
	}
	return Greeting{Text: text}, nil
}

func ExampleAddTool() {
	s := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	mcpfunc.AddTool(s, mcp.Tool{Name: "greet", Description: "Greets someone by name."}, Greet)
	// A server serves it with s.ServeStdio(ctx) or s.ListenAndServeHTTP(ctx, addr, nil);
	// here it is called in process.
	for _, args := range []string{`{"name":"Ada","times":2}`, `{"name":"","times":5}`} {
		res, _ := s.CallTool(context.Background(), "greet", []byte(args))
		fmt.Println(string(res))
	}
	// Output:
	// {"content":[{"type":"text","text":"{\"text\":\"Hello, Ada! Hello again!\"}"}],"structuredContent":{"text":"Hello, Ada! Hello again!"}}
	// {"content":[{"type":"text","text":"invalid arguments for tool greet:\n/name: must be at least 1 character long\n/times: must be <= 3"}],"isError":true}
}
