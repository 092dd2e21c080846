package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// What a broken server answers never leaves a call waiting: an answer the client cannot read
// fails the call it was meant for, on every transport, and a POST whose answer cannot hold
// the response fails its request at once.

// brokenResult is the answer a server wrote when a tool returned StructuredContent:
// []byte{}: its id can be read, the rest cannot.
const brokenResult = `{"jsonrpc":"2.0","id":%s,"result":{"content":[],"structuredContent":}}`

// callWithin calls the tool "t" with no deadline, as a program that trusts its server does,
// and fails the test if the call is still waiting after 10 seconds.
func callWithin(t *testing.T, c *Client) error {
	t.Helper()
	called := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "t", nil)
		called <- err
	}()
	select {
	case err := <-called:
		return err
	case <-time.After(10 * time.Second):
		c.Close() // ends the call, for the test to end
		<-called
		t.Fatal("a call without a deadline still waits for a broken server after 10s")
		return nil
	}
}

// answerNext answers the next request the client writes with answer, a format for its id,
// on a goroutine of its own.
func answerNext(t *testing.T, s *rawServer, answer string) (answered chan struct{}) {
	answered = make(chan struct{})
	go func() {
		defer close(answered)
		line := s.readLine()
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.ID == nil {
			t.Errorf("not a request: %s", line)
			return
		}
		s.write(fmt.Sprintf(answer, m.ID))
	}()
	return answered
}

// Over stdio: an answer whose id the client can read and the rest not (or that is JSON but
// not a valid response) fails the call it answers, at once; the connection goes on.
func TestClientFailsACallWhoseAnswerCannotBeRead(t *testing.T) {
	tr, s := pipeTransport(t)
	var log logRecorder
	c := connectRaw(t, tr, s, &log)
	defer c.Close()
	for _, answer := range []string{brokenResult, `{"jsonrpc":"2.0","id":%s,"error":{"code":"x","message":"m"}}`} {
		answered := answerNext(t, s, answer)
		err := callWithin(t, c)
		<-answered
		if err == nil || !strings.HasPrefix(err.Error(), "mcp: the server's answer to tools/call could not be read: ") {
			t.Errorf("answer %s: the call ended with %v", answer, err)
		}
	}
	answered := answerNext(t, s, `{"jsonrpc":"2.0","id":%s,"result":{}}`)
	if err := c.Ping(context.Background()); err != nil || c.Err() != nil {
		t.Errorf("after two unreadable answers: ping %v, Err %v", err, c.Err())
	}
	<-answered
	if !strings.Contains(log.String(), "could not be read") {
		t.Errorf("nothing logged:\n%s", log.String())
	}
}
