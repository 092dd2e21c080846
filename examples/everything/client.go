package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// SamplingInput is the prompt for the client's model.
type SamplingInput struct {
	// Prompt to send to the model.
	Prompt string `json:"prompt" jsonschema:"minLength=1"`
}

// Sampling asks the client's model to answer a prompt (sampling/createMessage).
//
//mcp:tool test_sampling
func Sampling(ctx context.Context, in SamplingInput) (string, error) {
	res, err := mcp.Sample(ctx, &mcp.CreateMessageRequest{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: in.Prompt}}},
		MaxTokens: 100,
	})
	if err != nil {
		return "", err
	}
	text, ok := res.Content.(mcp.Text)
	if !ok {
		return "", fmt.Errorf("the model answered with %T content, not text", res.Content)
	}
	return "LLM response: " + text.Text, nil
}

// getWeather is the tool test_sampling_tools offers the client's model.
var getWeather = mcp.SamplingTool{
	Name:        "get_weather",
	Description: "Get current weather for a city",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}`),
}

// weather is what get_weather says of the cities it knows.
var weather = map[string]string{"Paris": "18°C, partly cloudy", "London": "15°C, rainy"}

// SamplingTools asks the client's model to answer a prompt, offering it get_weather
// (sampling with tools), which the server runs while the model uses it.
//
//mcp:tool test_sampling_tools
func SamplingTools(ctx context.Context, in SamplingInput) (string, error) {
	req := &mcp.CreateMessageRequest{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: in.Prompt}}},
		Tools:     []mcp.SamplingTool{getWeather},
		MaxTokens: 1000,
	}
	for turn := 1; turn <= 4; turn++ {
		if turn == 4 {
			req.ToolChoice = mcp.ToolChoiceNone // the last turn answers in words
		}
		res, err := mcp.Sample(ctx, req)
		if err != nil {
			return "", err
		}
		if res.StopReason != mcp.StopToolUse {
			return "LLM response: " + mcp.TextOf(res.Contents), nil
		}
		var results []mcp.Content
		for _, b := range res.Contents {
			use, ok := b.(mcp.ToolUse)
			if !ok {
				continue
			}
			var args struct {
				City string `json:"city"`
			}
			result := mcp.ToolResult{ToolUseID: use.ID}
			if err := json.Unmarshal(use.Input, &args); err != nil || weather[args.City] == "" {
				result.IsError, result.Content = true, []mcp.Content{mcp.Text{Text: "no weather for " + string(use.Input)}}
			} else {
				result.Content = []mcp.Content{mcp.Text{Text: "Weather in " + args.City + ": " + weather[args.City]}}
			}
			results = append(results, result)
		}
		req.Messages = append(req.Messages,
			mcp.SamplingMessage{Role: mcp.RoleAssistant, Contents: res.Contents},
			mcp.SamplingMessage{Role: mcp.RoleUser, Contents: results})
	}
	return "", fmt.Errorf("the model still used tools when told to use none")
}

// ElicitationInput is the message shown to the user.
type ElicitationInput struct {
	// Message to show the user.
	Message string `json:"message" jsonschema:"minLength=1"`
}

// UserInfo is what test_elicitation asks the user for.
type UserInfo struct {
	// User's response
	Username string `json:"username"`
	// User's email address
	Email string `json:"email" jsonschema:"format=email"`
}

// Elicitation asks the user for a name and an email address (elicitation/create).
//
//mcp:tool test_elicitation
func Elicitation(ctx context.Context, in ElicitationInput) (string, error) {
	info, action, err := mcp.Elicit[UserInfo](ctx, in.Message)
	if err != nil {
		return "", err
	}
	return answer("User response", action, info), nil
}

// answer describes what the user did with a form.
func answer(what string, action mcp.ElicitAction, content any) string {
	if action != mcp.Accept {
		return fmt.Sprintf("%s: action=%s", what, action)
	}
	b, _ := json.Marshal(content)
	return fmt.Sprintf("%s: action=%s, content=%s", what, action, b)
}

// Profile is a form whose every field has a default (SEP-1034).
type Profile struct {
	// User name
	Name string `json:"name,omitempty" jsonschema:"default=John Doe"`
	// User age
	Age int `json:"age,omitempty" jsonschema:"minimum=0,maximum=150,default=30"`
	// User score
	Score float64 `json:"score,omitempty" jsonschema:"minimum=0,maximum=100,default=95.5"`
	// User status
	Status string `json:"status,omitempty" jsonschema:"enum=active,enum=inactive,enum=pending,default=active"`
	// Verification status
	Verified bool `json:"verified,omitempty" jsonschema:"default=true"`
}

// ElicitationDefaults asks the user to review a form of fields with defaults.
//
//mcp:tool test_elicitation_sep1034_defaults
func ElicitationDefaults(ctx context.Context) (string, error) {
	p, action, err := mcp.Elicit[Profile](ctx, "Please review and update the form fields with defaults")
	if err != nil {
		return "", err
	}
	return answer("Elicitation completed", action, p), nil
}

// Option is one of three options, each with a title for the user: the constants' comments.
type Option string

const (
	Value1 Option = "value1" // First Option
	Value2 Option = "value2" // Second Option
	Value3 Option = "value3" // Third Option
)

// Choice is one of three choices, each with a title.
type Choice string

const (
	Choice1 Choice = "value1" // First Choice
	Choice2 Choice = "value2" // Second Choice
	Choice3 Choice = "value3" // Third Choice
)

// Selections is a form with every kind of enum elicitation allows (SEP-1330).
type Selections struct {
	// Untitled single-select
	UntitledSingle string `json:"untitledSingle,omitempty" jsonschema:"enum=option1,enum=option2,enum=option3"`
	// Titled single-select
	TitledSingle Option `json:"titledSingle,omitempty"`
	// Legacy titled enum
	LegacyEnum string `json:"legacyEnum,omitempty" jsonschema:"enum=opt1,enum=opt2,enum=opt3" jsonschema_extras:"enumNames=Option One,enumNames=Option Two,enumNames=Option Three"`
	// Untitled multi-select
	UntitledMulti []string `json:"untitledMulti,omitempty" jsonschema:"minItems=1,maxItems=3,enum=option1,enum=option2,enum=option3"`
	// Titled multi-select
	TitledMulti []Choice `json:"titledMulti,omitempty" jsonschema:"minItems=1,maxItems=3"`
}

// ElicitationEnums asks the user to pick from every kind of enum.
//
//mcp:tool test_elicitation_sep1330_enums
func ElicitationEnums(ctx context.Context) (string, error) {
	s, action, err := mcp.Elicit[Selections](ctx, "Please select options from the enum fields")
	if err != nil {
		return "", err
	}
	return answer("Elicitation completed", action, s), nil
}

// ListRoots lists the roots the client lets the server work in (roots/list).
//
//mcp:tool test_roots readonly
func ListRoots(ctx context.Context) (string, error) {
	roots, err := mcp.Roots(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d roots", len(roots))
	for _, r := range roots {
		fmt.Fprintf(&b, "\n%s %s", r.URI, r.Name)
	}
	return b.String(), nil
}
