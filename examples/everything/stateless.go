package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Fixtures of revision 2026-07-28's conformance scenarios. The bodies are written as for any
// revision: in a session Elicit, Sample and Roots send requests to the client; in a
// stateless request they come back as an InputRequiredResult, and the body runs again with the
// answers. mcp.WithInputKey gives the requests the keys the suite looks for.

// NameForm asks for a name.
type NameForm struct {
	// Your name.
	Name string `json:"name"`
}

// ConfirmForm asks for a confirmation.
type ConfirmForm struct {
	// Whether you confirm.
	OK bool `json:"ok"`
}

// ColorForm asks for a color.
type ColorForm struct {
	// Your favorite color.
	Color string `json:"color"`
}

// ContextForm asks for context for a prompt.
type ContextForm struct {
	// Context for the prompt.
	Context string `json:"context"`
}

// askName elicits the user's name under the key user_name.
func askName(ctx context.Context) (string, error) {
	form, action, err := mcp.Elicit[NameForm](mcp.WithInputKey(ctx, "user_name"), "What is your name?")
	if err != nil {
		return "", err
	}
	if action != mcp.Accept {
		return "", fmt.Errorf("the user chose to %s", action)
	}
	return form.Name, nil
}

// InputRequiredElicitation greets the user by the name it asks for.
//
//mcp:tool test_input_required_result_elicitation
func InputRequiredElicitation(ctx context.Context) (string, error) {
	name, err := askName(ctx)
	if err != nil {
		return "", err
	}
	return "Hello, " + name + "!", nil
}

// StreamingElicitation asks the user for a name; the question travels in the result, never
// as a request of the server's on the response stream.
//
//mcp:tool test_streaming_elicitation
func StreamingElicitation(ctx context.Context) (string, error) {
	return InputRequiredElicitation(ctx)
}

// askModel asks the client's model a question under a key.
func askModel(ctx context.Context, key, question string, maxTokens int) (string, error) {
	res, err := mcp.Sample(mcp.WithInputKey(ctx, key), &mcp.CreateMessageRequest{
		Messages:  []mcp.SamplingMessage{{Content: mcp.Text{Text: question}}},
		MaxTokens: maxTokens,
	})
	if err != nil {
		return "", err
	}
	text, _ := res.Content.(mcp.Text)
	return text.Text, nil
}

// InputRequiredSampling asks the client's model for the capital of France.
//
//mcp:tool test_input_required_result_sampling
func InputRequiredSampling(ctx context.Context) (string, error) {
	answer, err := askModel(ctx, "capital_question", "What is the capital of France?", 100)
	if err != nil {
		return "", err
	}
	return "The model says: " + answer, nil
}

// listRoots asks the client for its roots under the key client_roots.
func listRoots(ctx context.Context) (string, error) {
	roots, err := mcp.Roots(mcp.WithInputKey(ctx, "client_roots"))
	if err != nil {
		return "", err
	}
	var uris []string
	for _, r := range roots {
		uris = append(uris, r.URI)
	}
	return strings.Join(uris, ", "), nil
}

// InputRequiredListRoots reports the client's roots.
//
//mcp:tool test_input_required_result_list_roots
func InputRequiredListRoots(ctx context.Context) (string, error) {
	roots, err := listRoots(ctx)
	if err != nil {
		return "", err
	}
	return "Roots: " + roots, nil
}

// confirm asks the user to confirm, under the key confirm.
func confirm(ctx context.Context) (bool, error) {
	form, action, err := mcp.Elicit[ConfirmForm](mcp.WithInputKey(ctx, "confirm"), "Please confirm")
	return action == mcp.Accept && form.OK, err
}

// InputRequiredRequestState asks for a confirmation; the request's state travels with the
// question and comes back with the answer.
//
//mcp:tool test_input_required_result_request_state
func InputRequiredRequestState(ctx context.Context) (string, error) {
	ok, err := confirm(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("state-ok: confirmed=%v", ok), nil
}

// InputRequiredTamperedState asks for a confirmation; a retry whose requestState was
// altered is refused.
//
//mcp:tool test_input_required_result_tampered_state
func InputRequiredTamperedState(ctx context.Context) (string, error) {
	return InputRequiredRequestState(ctx)
}

// InputRequiredMultipleInputs asks for a name, a greeting from the model and the roots, all
// at once: the body goes on after each unanswered request, so the three travel together.
//
//mcp:tool test_input_required_result_multiple_inputs
func InputRequiredMultipleInputs(ctx context.Context) (string, error) {
	name, err1 := askName(ctx)
	greeting, err2 := askModel(ctx, "greeting", "Say hello.", 50)
	roots, err3 := listRoots(ctx)
	if err := errors.Join(err1, err2, err3); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, %s (roots: %s)", greeting, name, roots), nil
}

// InputRequiredMultiRound asks for a name, then, in a second round, for a color.
//
//mcp:tool test_input_required_result_multi_round
func InputRequiredMultiRound(ctx context.Context) (string, error) {
	name, _, err := mcp.Elicit[NameForm](mcp.WithInputKey(ctx, "step1"), "What is your name?")
	if err != nil {
		return "", err
	}
	color, _, err := mcp.Elicit[ColorForm](mcp.WithInputKey(ctx, "step2"), "What is your favorite color, "+name.Name+"?")
	if err != nil {
		return "", err
	}
	return name.Name + " likes " + color.Color, nil
}

// InputRequiredCapabilities asks the user for a confirmation if the client can show forms,
// and its model otherwise.
//
//mcp:tool test_input_required_result_capabilities
func InputRequiredCapabilities(ctx context.Context) (string, error) {
	ok, err := confirm(ctx)
	var noForms *mcp.ErrCapability
	if errors.As(err, &noForms) {
		answer, err := askModel(ctx, "confirm_by_model", "Should this go ahead? Answer yes or no.", 10)
		if err != nil {
			return "", err
		}
		return "The model said: " + answer, nil
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("confirmed=%v", ok), nil
}

// MissingCapability needs the client's model: without the sampling capability, a stateless
// request gets MissingRequiredClientCapability.
//
//mcp:tool test_missing_capability
func MissingCapability(ctx context.Context) (string, error) {
	answer, err := askModel(ctx, "question", "What is 2+2?", 10)
	if err != nil {
		return "", err
	}
	return "The model says: " + answer, nil
}

// Logging sends a log message, which a stateless request receives only if it asked for a log
// level, then answers.
//
//mcp:tool test_logging_tool
func Logging(ctx context.Context) string {
	mcp.Log(ctx, mcp.LevelInfo, "everything", "test_logging_tool was called")
	return "logged"
}

// InputRequiredPrompt asks the user for context, then builds the prompt with it.
//
//mcp:prompt test_input_required_result_prompt
func InputRequiredPrompt(ctx context.Context) (string, error) {
	form, _, err := mcp.Elicit[ContextForm](mcp.WithInputKey(ctx, "user_context"), "What context should the prompt use?")
	if err != nil {
		return "", err
	}
	return "Use this context: " + form.Context, nil
}

// Lists holds the server, whose own lists two fixtures change.
type Lists struct{ srv *mcp.Server }

// dynamicTool comes and goes with test_trigger_tool_change.
var dynamicTool = mcp.Tool{
	Name:        "test_dynamic_tool",
	Description: "A tool that test_trigger_tool_change adds and removes.",
	InputSchema: `{"type":"object"}`,
	Handler:     func(ctx context.Context, c *mcp.ToolCall) { c.ReturnText("dynamic") },
}

// dynamicPrompt comes and goes with test_trigger_prompt_change.
var dynamicPrompt = mcp.Prompt{
	Name:        "test_dynamic_prompt",
	Description: "A prompt that test_trigger_prompt_change adds and removes.",
	Get: func(ctx context.Context, args *mcp.Input) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Content: mcp.Text{Text: "dynamic"}}}}, nil
	},
}

// TriggerToolChange adds test_dynamic_tool, or removes it if it is there: the tool list
// changes, and subscribers hear of it.
//
//mcp:tool test_trigger_tool_change
func (l *Lists) TriggerToolChange() string {
	if l.srv.RemoveTool(dynamicTool.Name) {
		return "removed " + dynamicTool.Name
	}
	l.srv.AddTool(dynamicTool)
	return "added " + dynamicTool.Name
}

// TriggerPromptChange adds test_dynamic_prompt, or removes it if it is there.
//
//mcp:tool test_trigger_prompt_change
func (l *Lists) TriggerPromptChange() string {
	if l.srv.RemovePrompt(dynamicPrompt.Name) {
		return "removed " + dynamicPrompt.Name
	}
	l.srv.AddPrompt(dynamicPrompt)
	return "added " + dynamicPrompt.Name
}

// CustomHeaderInput has an argument that clients mirror into an HTTP header.
type CustomHeaderInput struct {
	// Region to work in; sent as the Mcp-Param-Region header too.
	Region string `json:"region" mcp:"header=Region"`
}

// CustomHeader echoes its region, which the server checked against the Mcp-Param-Region
// header over HTTP.
//
//mcp:tool test_custom_header readonly
func CustomHeader(in CustomHeaderInput) string {
	return "region: " + in.Region
}
