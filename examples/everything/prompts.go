package main

import (
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// SimplePrompt is a prompt without arguments.
//
//mcp:prompt test_simple_prompt
func SimplePrompt() string {
	return "This is a simple prompt for testing."
}

// PromptArgs are the arguments of test_prompt_with_arguments.
type PromptArgs struct {
	// First test argument
	Arg1 string `json:"arg1"`
	// Second test argument
	Arg2 string `json:"arg2"`
}

// PromptWithArguments is a prompt with two required arguments.
//
//mcp:prompt test_prompt_with_arguments
func PromptWithArguments(in PromptArgs) string {
	return fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", in.Arg1, in.Arg2)
}

// CompleteArg1 suggests values for arg1 of test_prompt_with_arguments.
//
//mcp:complete prompt=test_prompt_with_arguments arg=arg1
func CompleteArg1(value string) []string {
	var out []string
	for _, v := range []string{"paris", "park", "party", "test", "testing"} {
		if strings.HasPrefix(v, value) {
			out = append(out, v)
		}
	}
	return out
}

// EmbeddedArgs are the arguments of test_prompt_with_embedded_resource.
type EmbeddedArgs struct {
	// URI of the resource to embed
	ResourceURI string `json:"resourceUri" jsonschema:"minLength=1"`
}

// PromptWithEmbeddedResource is a prompt that embeds a resource.
//
//mcp:prompt test_prompt_with_embedded_resource
func PromptWithEmbeddedResource(in EmbeddedArgs) []mcp.PromptMessage {
	return []mcp.PromptMessage{
		{Role: mcp.RoleUser, Content: mcp.EmbeddedResource{Resource: mcp.ResourceContents{
			URI: in.ResourceURI, MIMEType: "text/plain", Text: "Embedded resource content for testing.",
		}}},
		{Role: mcp.RoleUser, Content: mcp.Text{Text: "Please process the embedded resource above."}},
	}
}

// PromptWithImage is a prompt with an image.
//
//mcp:prompt test_prompt_with_image
func PromptWithImage() []mcp.PromptMessage {
	return []mcp.PromptMessage{
		{Role: mcp.RoleUser, Content: mcp.Image{Data: pngPixel, MIMEType: "image/png"}},
		{Role: mcp.RoleUser, Content: mcp.Text{Text: "Please analyze the image above."}},
	}
}
