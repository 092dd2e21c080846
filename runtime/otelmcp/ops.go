package otelmcp

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// opKey is what makes calls the same operation for telemetry: the same span name, the same
// attributes at the span's start and the same histogram series.
type opKey struct {
	outgoing  bool
	method    string
	target    string // the tool, prompt or other name the params give
	peer      string // the server's host:port, on a client only
	version   string
	transport string
	errorType string // "" for a call that succeeded
}

// op is what an operation's calls share, made once.
type op struct {
	name   string
	start  []trace.SpanStartOption
	record []metric.RecordOption
}

// maxOps bounds the cache: the method and tool names come from the other side, and a client
// that calls ever new names must not grow it without end. Past it, a call makes its op.
const maxOps = 1024

// ops caches each operation's op.
type ops struct {
	mu sync.RWMutex
	m  map[opKey]*op
}

func (c *ops) get(k opKey) *op {
	c.mu.RLock()
	o := c.m[k]
	c.mu.RUnlock()
	if o != nil {
		return o
	}
	kind := trace.SpanKindServer
	if k.outgoing {
		kind = trace.SpanKindClient
	}
	o = &op{
		name:   spanName(k.method, k.target),
		start:  []trace.SpanStartOption{trace.WithSpanKind(kind), trace.WithAttributes(startAttributes(k, make([]attribute.KeyValue, 0, 5))...)},
		record: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(metricAttributes(k)...))},
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev := c.m[k]; prev != nil {
		return prev
	}
	if len(c.m) < maxOps {
		if c.m == nil {
			c.m = make(map[opKey]*op)
		}
		c.m[k] = o
	}
	return o
}
