package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// inputMethods maps the keys of an InputRequiredResult's inputRequests to their methods.
func inputMethods(res map[string]any) map[string]string {
	out := map[string]string{}
	reqs, _ := res["inputRequests"].(map[string]any)
	for k, v := range reqs {
		m, _ := v.(map[string]any)
		out[k], _ = m["method"].(string)
	}
	return out
}

// inputRequired sends a request that must answer with an InputRequiredResult, and returns it.
func (c *mclient) inputRequired(method string, params, meta map[string]any) map[string]any {
	c.t.Helper()
	x := c.do(mcall{method: method, params: params, meta: meta})
	res := x.result()
	if res == nil || res["resultType"] != "input_required" {
		c.t.Fatalf("%s %v: want an InputRequiredResult, got %v", method, params["name"], x.resp)
	}
	if _, hint := res["ttlMs"]; hint {
		c.t.Errorf("an InputRequiredResult with a cache hint: %v", res)
	}
	return res
}

// retry is params with a retry's answers and state.
func retry(params map[string]any, responses map[string]any, state any) map[string]any {
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	if responses != nil {
		out["inputResponses"] = responses
	}
	if state != nil {
		out["requestState"] = state
	}
	return out
}

func accept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

func statelessInputRequired(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{}}
	res := c.inputRequired("tools/call", params, elicitCaps)
	req, _ := res["inputRequests"].(map[string]any)["user_name"].(map[string]any)
	if len(res["inputRequests"].(map[string]any)) != 1 || req["method"] != "elicitation/create" {
		t.Fatalf("inputRequests %v, want user_name alone", res["inputRequests"])
	}
	p := req["params"].(map[string]any)
	schema, _ := json.Marshal(p["requestedSchema"])
	if p["message"] != "What is your name?" || !strings.Contains(string(schema), `"name":{`) {
		t.Errorf("elicitation request %v", p)
	}
	state, _ := res["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState: %v", res)
	}
	// The retry, a new request with the answer and the state, completes.
	done := c.must("tools/call", retry(params, map[string]any{"user_name": accept(map[string]any{"name": "Alice"})}, state), elicitCaps)
	if got := fmt.Sprint(done["content"]); !strings.Contains(got, "Hello, Alice!") {
		t.Errorf("after the answer: %v", done)
	}
	// An answer under an unknown key only: asked again, not an error and not complete.
	res = c.inputRequired("tools/call", retry(params, map[string]any{"wrong_key": accept(map[string]any{"data": "wrong"})}, nil), elicitCaps)
	if inputMethods(res)["user_name"] != "elicitation/create" {
		t.Errorf("a wrong key was not asked again: %v", res)
	}
	// Extra answers are ignored; the state is optional.
	done = c.must("tools/call", retry(params, map[string]any{"user_name": accept(map[string]any{"name": "Bob"}),
		"unknown_extra_key": map[string]any{"whatever": true}}, nil), elicitCaps)
	if !strings.Contains(fmt.Sprint(done["content"]), "Hello, Bob!") {
		t.Errorf("with extra answers: %v", done)
	}
	// An answer that is not a result is not taken as one.
	x := c.do(mcall{method: "tools/call", params: retry(params, map[string]any{"user_name": 12345}, nil), meta: elicitCaps})
	if r := x.result(); r != nil && r["resultType"] != "input_required" {
		t.Errorf("a malformed answer completed the request: %v", x.resp)
	}
	// A declined form is the tool's error, not a protocol error.
	done = c.must("tools/call", retry(params, map[string]any{"user_name": map[string]any{"action": "decline"}}, state), elicitCaps)
	if done["isError"] != true {
		t.Errorf("declined: %v", done)
	}
	// The question never comes as a request of the server's (the mconn checks that), and
	// the streaming variant answers the same way.
	if res := c.inputRequired("tools/call", map[string]any{"name": "test_streaming_elicitation", "arguments": map[string]any{}}, elicitCaps); inputMethods(res)["user_name"] != "elicitation/create" {
		t.Errorf("test_streaming_elicitation: %v", res)
	}
}

func statelessMultiRound(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_multi_round", "arguments": map[string]any{}}
	r1 := c.inputRequired("tools/call", params, elicitCaps)
	s1, _ := r1["requestState"].(string)
	if got := inputMethods(r1); len(got) != 1 || got["step1"] != "elicitation/create" || s1 == "" {
		t.Fatalf("round 1: %v", r1)
	}
	r2 := c.inputRequired("tools/call", retry(params, map[string]any{"step1": accept(map[string]any{"name": "Alice"})}, s1), elicitCaps)
	s2, _ := r2["requestState"].(string)
	if got := inputMethods(r2); len(got) != 1 || got["step2"] != "elicitation/create" {
		t.Fatalf("round 2 asks %v, want step2 alone", got)
	}
	if s2 == "" || s2 == s1 {
		t.Fatalf("round 2's state %q is round 1's, or missing", s2)
	}
	if msg := r2["inputRequests"].(map[string]any)["step2"].(map[string]any)["params"].(map[string]any)["message"]; !strings.Contains(fmt.Sprint(msg), "Alice") {
		t.Errorf("round 2's question does not know round 1's answer: %v", msg)
	}
	// Round 3 sends only step2's answer: step1's travels in the state.
	r3 := c.must("tools/call", retry(params, map[string]any{"step2": accept(map[string]any{"color": "blue"})}, s2), elicitCaps)
	if got := fmt.Sprint(r3["content"]); !strings.Contains(got, "Alice likes blue") {
		t.Errorf("round 3: %v", r3)
	}
	// Round 1's state does not carry step1's answer: with it, step1 is asked again.
	again := c.inputRequired("tools/call", retry(params, map[string]any{"step2": accept(map[string]any{"color": "blue"})}, s1), elicitCaps)
	if inputMethods(again)["step1"] != "elicitation/create" {
		t.Errorf("round 1's state with only step2's answer: %v", again)
	}
}

func statelessMultipleInputs(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_multiple_inputs", "arguments": map[string]any{}}
	res := c.inputRequired("tools/call", params, allCaps)
	want := map[string]string{"user_name": "elicitation/create", "greeting": "sampling/createMessage", "client_roots": "roots/list"}
	if got := inputMethods(res); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("inputRequests %v, want %v", got, want)
	}
	if mt := res["inputRequests"].(map[string]any)["greeting"].(map[string]any)["params"].(map[string]any)["maxTokens"]; mt != 50.0 {
		t.Errorf("greeting maxTokens %v", mt)
	}
	done := c.must("tools/call", retry(params, map[string]any{
		"user_name":    accept(map[string]any{"name": "Alice"}),
		"greeting":     map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Hello there!"}, "model": "test-model", "stopReason": "endTurn"},
		"client_roots": map[string]any{"roots": []any{map[string]any{"uri": "file:///test/root", "name": "Test Root"}}},
	}, res["requestState"]), allCaps)
	if got := fmt.Sprint(done["content"]); !strings.Contains(got, "Hello there!, Alice (roots: file:///test/root)") {
		t.Errorf("all answered: %v", done)
	}
	// Two of three answered: the third is asked again, alone.
	partial := c.inputRequired("tools/call", retry(params, map[string]any{
		"user_name":    accept(map[string]any{"name": "Alice"}),
		"client_roots": map[string]any{"roots": []any{}},
	}, res["requestState"]), allCaps)
	if got := inputMethods(partial); len(got) != 1 || got["greeting"] != "sampling/createMessage" {
		t.Errorf("partly answered: %v", got)
	}
}

func statelessRequestState(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_tampered_state", "arguments": map[string]any{}}
	res := c.inputRequired("tools/call", params, elicitCaps)
	state, _ := res["requestState"].(string)
	if state == "" || inputMethods(res)["confirm"] != "elicitation/create" {
		t.Fatalf("first round: %v", res)
	}
	answer := map[string]any{"confirm": accept(map[string]any{"ok": true})}
	for _, bad := range []string{state + "-TAMPERED", state[:len(state)-2], "", "not-a-state"} {
		x := c.do(mcall{method: "tools/call", params: retry(params, answer, bad), meta: elicitCaps})
		if x.rpcError() == nil {
			t.Errorf("requestState %q: want an error, got %v", bad, x.resp)
		}
	}
	// A state with an answer in it (round 2 of multi_round) is bound to its request: not to
	// another tool, nor to other arguments, nor to another method.
	mr := map[string]any{"name": "test_input_required_result_multi_round", "arguments": map[string]any{}}
	r1 := c.inputRequired("tools/call", mr, elicitCaps)
	r2 := c.inputRequired("tools/call", retry(mr, map[string]any{"step1": accept(map[string]any{"name": "Mallory"})}, r1["requestState"]), elicitCaps)
	s2 := r2["requestState"]
	for what, call := range map[string]mcall{
		"another tool": {method: "tools/call", params: retry(map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{}}, nil, s2)},
		"other arguments": {method: "tools/call", params: retry(map[string]any{"name": "test_input_required_result_multi_round",
			"arguments": map[string]any{"extra": 1}}, map[string]any{"step2": accept(map[string]any{"color": "red"})}, s2)},
		"another method": {method: "prompts/get", params: retry(map[string]any{"name": "test_input_required_result_prompt"}, nil, s2)},
	} {
		call.meta = elicitCaps
		if x := c.do(call); x.rpcError() == nil {
			t.Errorf("round 2's state replayed on %s: want an error, got %v", what, x.resp)
		}
	}
	// Its own request still takes it.
	if done := c.must("tools/call", retry(mr, map[string]any{"step2": accept(map[string]any{"color": "red"})}, s2), elicitCaps); !strings.Contains(fmt.Sprint(done["content"]), "Mallory likes red") {
		t.Errorf("the state on its own request: %v", done)
	}
	// test_input_required_result_request_state: answered with its state, it says so.
	rs := map[string]any{"name": "test_input_required_result_request_state", "arguments": map[string]any{}}
	res = c.inputRequired("tools/call", rs, elicitCaps)
	if done := c.must("tools/call", retry(rs, answer, res["requestState"]), elicitCaps); !strings.Contains(fmt.Sprint(done["content"]), "state-ok") {
		t.Errorf("request state tool: %v", done)
	}
}

func statelessInputCapabilities(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_capabilities", "arguments": map[string]any{}}
	// Capabilities come from each request alone: with sampling only, the tool asks the model.
	res := c.inputRequired("tools/call", params, samplingCaps)
	got := inputMethods(res)
	if len(got) == 0 {
		t.Errorf("no input requests: %v", res)
	}
	for k, m := range got {
		if m == "elicitation/create" {
			t.Errorf("an elicitation (%s) for a client without the capability: %v", k, res)
		}
	}
	if got["confirm_by_model"] != "sampling/createMessage" {
		t.Errorf("with sampling only: %v", got)
	}
	// With elicitation, it asks the user.
	if got := inputMethods(c.inputRequired("tools/call", params, elicitCaps)); got["confirm"] != "elicitation/create" || len(got) != 1 {
		t.Errorf("with elicitation: %v", got)
	}
	// An earlier request's capabilities do not carry over to one without them.
	x := c.do(mcall{method: "tools/call", params: params})
	if r := x.result(); r != nil && r["resultType"] == "input_required" {
		t.Errorf("input requested of a client with no capabilities: %v", r)
	}
	// Only the three methods of multi round-trip requests ever answer input_required.
	for _, m := range []string{"tools/list", "prompts/list"} {
		if r := c.must(m, nil, allCaps); r["resultType"] != "complete" {
			t.Errorf("%s: %v", m, r["resultType"])
		}
	}
}

func statelessInputRequiredPrompt(t *testing.T, c *mclient) {
	params := map[string]any{"name": "test_input_required_result_prompt"}
	res := c.inputRequired("prompts/get", params, elicitCaps)
	if got := inputMethods(res); len(got) != 1 || got["user_context"] != "elicitation/create" {
		t.Fatalf("prompt input requests %v", got)
	}
	done := c.must("prompts/get", retry(params, map[string]any{"user_context": accept(map[string]any{"context": "test context"})}, res["requestState"]), elicitCaps)
	msgs, _ := done["messages"].([]any)
	if got, _ := json.Marshal(msgs); len(msgs) == 0 || !strings.Contains(string(got), "Use this context: test context") {
		t.Errorf("prompt: %v", done)
	}
	// Without elicitation the prompt cannot ask: the client lacks a capability.
	x := c.do(mcall{method: "prompts/get", params: params})
	expectError(t, c.conn, x, "prompt without elicitation", -32021, 400)
}
