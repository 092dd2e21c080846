package otelcoltest

import (
	"math"
	"reflect"
	"testing"
	"time"
)

// OTLP JSON as the file exporter writes it: 64-bit integers as strings, every kind of
// attribute value, special doubles, each metric type; a last line still being written is
// left for the next read.
func TestParse(t *testing.T) {
	traces := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"scope":{"name":"sc"},"spans":[` +
		`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","parentSpanId":"1112131415161718","name":"s","kind":3,"startTimeUnixNano":"1000000000","endTimeUnixNano":"2000000000",` +
		`"attributes":[{"key":"i","value":{"intValue":"-9007199254740993"}},{"key":"d","value":{"doubleValue":"NaN"}},{"key":"b","value":{"bytesValue":"aGk="}},{"key":"e","value":{}},` +
		`{"key":"a","value":{"arrayValue":{"values":[{"intValue":"1"},{"stringValue":"x"}]}}},{"key":"m","value":{"kvlistValue":{"values":[{"key":"k","value":{"boolValue":false}}]}}}],` +
		`"events":[{"timeUnixNano":"1500000000","name":"exception","attributes":[{"key":"exception.message","value":{"stringValue":"boom"}}]}],"status":{"message":"boom","code":2}}]}]}]}` + "\n" +
		`{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[{"traceId":"ff","spanId":"ee","name":"partial`
	spans, err := ParseTraces([]byte(traces))
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1 (the partial line left out)", len(spans))
	}
	s := spans[0]
	if s.Kind != "client" || s.Status != (Status{"error", "boom"}) || s.ParentSpanID != "1112131415161718" || s.Scope != "sc" || s.Resource["service.name"] != "svc" {
		t.Errorf("span: %+v", s)
	}
	if !s.Start.Equal(time.Unix(1, 0)) || !s.End.Equal(time.Unix(2, 0)) || !s.Events[0].Time.Equal(time.Unix(1, 5e8)) {
		t.Errorf("times: %v %v %v", s.Start, s.End, s.Events[0].Time)
	}
	if s.Attributes["i"] != int64(-9007199254740993) || !math.IsNaN(s.Attributes["d"].(float64)) || string(s.Attributes["b"].([]byte)) != "hi" || s.Attributes["e"] != nil {
		t.Errorf("scalar attributes: %#v", s.Attributes)
	}
	if !reflect.DeepEqual(s.Attributes["a"], []any{int64(1), "x"}) || !reflect.DeepEqual(s.Attributes["m"], map[string]any{"k": false}) {
		t.Errorf("array and map attributes: %#v %#v", s.Attributes["a"], s.Attributes["m"])
	}

	metrics := `{"resourceMetrics":[{"resource":{},"scopeMetrics":[{"scope":{"name":"sc"},"metrics":[` +
		`{"name":"g","gauge":{"dataPoints":[{"asDouble":1.5}]}},` +
		`{"name":"c","unit":"{call}","sum":{"dataPoints":[{"asInt":"7","attributes":[{"key":"k","value":{"stringValue":"v"}}]}],"aggregationTemporality":1,"isMonotonic":true}},` +
		`{"name":"h","histogram":{"dataPoints":[{"count":"3","sum":"Infinity","bucketCounts":["1","0","2"],"explicitBounds":[1,2],"min":0.5,"max":9}],"aggregationTemporality":2}},` +
		`{"name":"x","exponentialHistogram":{"dataPoints":[{"count":"2","sum":3}],"aggregationTemporality":2}},` +
		`{"name":"q","summary":{"dataPoints":[{"count":"4","sum":10}]}}]}]}]}` + "\n"
	ms, err := ParseMetrics([]byte(metrics))
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Name, Type, Temporality string
		Monotonic               bool
		Value                   float64
		Count                   uint64
	}
	var got []summary
	for _, m := range ms {
		got = append(got, summary{m.Name, m.Type, m.Temporality, m.Monotonic, m.Points[0].Value, m.Points[0].Count})
	}
	want := []summary{{"g", "gauge", "", false, 1.5, 0}, {"c", "sum", "delta", true, 7, 0}, {"h", "histogram", "cumulative", false, 0, 3}, {"x", "exponential_histogram", "cumulative", false, 0, 2}, {"q", "summary", "", false, 0, 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("metrics:\n got %+v\nwant %+v", got, want)
	}
	h := ms[2].Points[0]
	if !math.IsInf(h.Sum, 1) || !reflect.DeepEqual(h.Bounds, []float64{1, 2}) || !reflect.DeepEqual(h.Buckets, []uint64{1, 0, 2}) || *h.Min != 0.5 || *h.Max != 9 {
		t.Errorf("histogram point: %+v", h)
	}
	if ms[1].Points[0].Attributes["k"] != "v" || ms[1].Unit != "{call}" {
		t.Errorf("sum: %+v", ms[1])
	}
	if m, ok := LastMetric(ms, "c"); !ok || m.Type != "sum" {
		t.Errorf("LastMetric(c) = %+v, %v", m, ok)
	}
}

// What is not OTLP JSON is an error naming the line, not a guess.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"not JSON", "{\n"},
		{"unknown span kind", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"s","kind":9}]}]}]}` + "\n"},
		{"an integer that is not", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"s","attributes":[{"key":"i","value":{"intValue":"x"}}]}]}]}]}` + "\n"},
	} {
		if _, err := ParseTraces([]byte("\n" + tc.data)); err == nil || err.Error()[:6] != "line 2" {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := ParseMetrics([]byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"m"}]}]}]}` + "\n")); err == nil {
		t.Error("a metric without data: no error")
	}
}
