package mcp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A protected server reads a task from its store once for tasks/get (issue 40, finding 7:
// facts once): the door reads it for its tool's scopes, and the answer is made of that
// record, not of a second read (a round trip to Redis for a shared store).
func TestTasksGetReadsTheStoreOnce(t *testing.T) {
	store := &countingStore{TaskStore: NewMemoryTaskStore()}
	srv := quietServer(&ServerOptions{Tasks: TaskOptions{Store: store},
		ShutdownTimeout: time.Millisecond}) // the store is not this process's own: no grace for the task
	srv.AddTool(Tool{Name: "report", InputSchema: `{"type":"object"}`, Scopes: []string{"files:read"}, Task: TaskRequired, Handler: func(ctx context.Context, c *ToolCall) {
		<-ctx.Done()
		c.ReturnText("the report")
	}})
	t.Cleanup(func() { srv.tasks.shutdown(context.Background()) })
	url := serveProtected(t, srv, map[string]*AuthInfo{
		"ada": {Issuer: "https://auth.example.com", Subject: "ada", ClientID: "app", Scopes: []string{"files:read"}},
	}) + "/mcp"
	request := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + params + `,` + taskMeta + `}}`
	}
	r := authPost(t, url, "ada", "", request("tools/call", `"name":"report"`))
	id, _ := result(t, r.body)["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %d %v", r.status, r.body)
	}
	before := store.gets.Load()
	r = authPost(t, url, "ada", "", request("tasks/get", `"taskId":"`+id+`"`))
	if task := result(t, r.body); task["status"] != "working" || !strings.Contains(r.raw(), id) {
		t.Fatalf("tasks/get: %d %v", r.status, r.body)
	}
	if n := store.gets.Load() - before; n != 1 {
		t.Errorf("tasks/get read the task from the store %d times; want once", n)
	}
}
