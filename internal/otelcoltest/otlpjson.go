package otelcoltest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Span is a span as the collector wrote it.
type Span struct {
	Resource     map[string]any // the resource's attributes, service.name among them
	Scope        string         // the instrumentation scope's name
	TraceID      string         // 32 hex digits
	SpanID       string         // 16 hex digits
	ParentSpanID string         // "" for a root span
	Name         string
	Kind         string // "internal", "server", "client", "producer", "consumer" or "unspecified"
	Start, End   time.Time
	Attributes   map[string]any
	Events       []Event
	Status       Status
}

// Event is a span's event (an exception recorded by RecordError is one).
type Event struct {
	Name       string
	Time       time.Time
	Attributes map[string]any
}

// Status is a span's status: Code is "unset", "ok" or "error".
type Status struct {
	Code    string
	Message string
}

// Metric is one metric of one export: a process that exports every second writes each of
// its metrics once a second, with cumulative temporality the running totals each time.
type Metric struct {
	Resource    map[string]any
	Scope       string
	Name        string
	Description string
	Unit        string
	Type        string // "gauge", "sum", "histogram", "exponential_histogram" or "summary"
	Temporality string // "cumulative" or "delta", for sums and histograms
	Monotonic   bool   // for sums: a counter
	Points      []Point
}

// Point is a data point. Gauges and sums have a Value; histograms and summaries a Count and
// a Sum; explicit-bucket histograms Bounds and Buckets, Buckets[i] counting the values in
// (Bounds[i-1], Bounds[i]] and the last one those above the last bound.
type Point struct {
	Attributes  map[string]any
	Start, Time time.Time
	Value       float64
	Count       uint64
	Sum         float64
	Bounds      []float64
	Buckets     []uint64
	Min, Max    *float64 // nil when not recorded
}

// Attribute values are string, bool, int64, float64, []byte, []any or map[string]any.

// ParseTraces reads the file exporter's traces: OTLP JSON, one export a line. A last line
// without its newline (a write in progress) is left out.
func ParseTraces(data []byte) ([]Span, error) {
	var spans []Span
	err := eachLine(data, func(line []byte) error {
		var doc struct {
			ResourceSpans []struct {
				Resource   otlpResource `json:"resource"`
				ScopeSpans []struct {
					Scope otlpScope  `json:"scope"`
					Spans []otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			return err
		}
		for _, rs := range doc.ResourceSpans {
			res, err := attributes(rs.Resource.Attributes)
			if err != nil {
				return err
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					span, err := s.span()
					if err != nil {
						return fmt.Errorf("span %q: %v", s.Name, err)
					}
					span.Resource, span.Scope = res, ss.Scope.Name
					spans = append(spans, span)
				}
			}
		}
		return nil
	})
	return spans, err
}

// ParseMetrics reads the file exporter's metrics, as ParseTraces its traces.
func ParseMetrics(data []byte) ([]Metric, error) {
	var metrics []Metric
	err := eachLine(data, func(line []byte) error {
		var doc struct {
			ResourceMetrics []struct {
				Resource     otlpResource `json:"resource"`
				ScopeMetrics []struct {
					Scope   otlpScope    `json:"scope"`
					Metrics []otlpMetric `json:"metrics"`
				} `json:"scopeMetrics"`
			} `json:"resourceMetrics"`
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			return err
		}
		for _, rm := range doc.ResourceMetrics {
			res, err := attributes(rm.Resource.Attributes)
			if err != nil {
				return err
			}
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					metric, err := m.metric()
					if err != nil {
						return fmt.Errorf("metric %q: %v", m.Name, err)
					}
					metric.Resource, metric.Scope = res, sm.Scope.Name
					metrics = append(metrics, metric)
				}
			}
		}
		return nil
	})
	return metrics, err
}

// LastMetric is the last metric named name in metrics: with cumulative temporality, the
// latest totals of a process that is the only one exporting it.
func LastMetric(metrics []Metric, name string) (Metric, bool) {
	for i := len(metrics) - 1; i >= 0; i-- {
		if metrics[i].Name == name {
			return metrics[i], true
		}
	}
	return Metric{}, false
}

func eachLine(data []byte, f func([]byte) error) error {
	for n := 1; ; n++ {
		line, rest, ok := bytes.Cut(data, []byte("\n"))
		if !ok {
			return nil // empty, or a line still being written
		}
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := f(line); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
	}
}

type otlpResource struct {
	Attributes []keyValue `json:"attributes"`
}

type otlpScope struct {
	Name string `json:"name"`
}

type keyValue struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

type anyValue struct {
	StringValue *string                      `json:"stringValue"`
	BoolValue   *bool                        `json:"boolValue"`
	IntValue    *integer                     `json:"intValue"`
	DoubleValue *double                      `json:"doubleValue"`
	BytesValue  *string                      `json:"bytesValue"`
	ArrayValue  *struct{ Values []anyValue } `json:"arrayValue"`
	KvlistValue *struct{ Values []keyValue } `json:"kvlistValue"`
}

func (v anyValue) value() (any, error) {
	switch {
	case v.StringValue != nil:
		return *v.StringValue, nil
	case v.BoolValue != nil:
		return *v.BoolValue, nil
	case v.IntValue != nil:
		return int64(*v.IntValue), nil
	case v.DoubleValue != nil:
		return float64(*v.DoubleValue), nil
	case v.BytesValue != nil:
		return base64.StdEncoding.DecodeString(*v.BytesValue)
	case v.ArrayValue != nil:
		list := make([]any, len(v.ArrayValue.Values))
		for i, e := range v.ArrayValue.Values {
			var err error
			if list[i], err = e.value(); err != nil {
				return nil, err
			}
		}
		return list, nil
	case v.KvlistValue != nil:
		return attributes(v.KvlistValue.Values)
	}
	return nil, nil // an empty value
}

func attributes(kvs []keyValue) (map[string]any, error) {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v, err := kv.Value.value()
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %v", kv.Key, err)
		}
		m[kv.Key] = v
	}
	return m, nil
}

type otlpSpan struct {
	TraceID      string     `json:"traceId"`
	SpanID       string     `json:"spanId"`
	ParentSpanID string     `json:"parentSpanId"`
	Name         string     `json:"name"`
	Kind         int        `json:"kind"`
	Start        unsigned   `json:"startTimeUnixNano"`
	End          unsigned   `json:"endTimeUnixNano"`
	Attributes   []keyValue `json:"attributes"`
	Events       []struct {
		Time       unsigned   `json:"timeUnixNano"`
		Name       string     `json:"name"`
		Attributes []keyValue `json:"attributes"`
	} `json:"events"`
	Status struct {
		Message string `json:"message"`
		Code    int    `json:"code"`
	} `json:"status"`
}

var (
	spanKinds   = []string{"unspecified", "internal", "server", "client", "producer", "consumer"}
	statusCodes = []string{"unset", "ok", "error"}
)

func (s otlpSpan) span() (Span, error) {
	attrs, err := attributes(s.Attributes)
	if err != nil {
		return Span{}, err
	}
	if s.Kind < 0 || s.Kind >= len(spanKinds) || s.Status.Code < 0 || s.Status.Code >= len(statusCodes) {
		return Span{}, fmt.Errorf("kind %d, status code %d: not OTLP's", s.Kind, s.Status.Code)
	}
	span := Span{
		TraceID:      s.TraceID,
		SpanID:       s.SpanID,
		ParentSpanID: s.ParentSpanID,
		Name:         s.Name,
		Kind:         spanKinds[s.Kind],
		Start:        s.Start.time(),
		End:          s.End.time(),
		Attributes:   attrs,
		Status:       Status{Code: statusCodes[s.Status.Code], Message: s.Status.Message},
	}
	for _, e := range s.Events {
		attrs, err := attributes(e.Attributes)
		if err != nil {
			return Span{}, fmt.Errorf("event %q: %v", e.Name, err)
		}
		span.Events = append(span.Events, Event{Name: e.Name, Time: e.Time.time(), Attributes: attrs})
	}
	return span, nil
}

type otlpMetric struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Unit        string `json:"unit"`
	Gauge       *struct {
		DataPoints []dataPoint `json:"dataPoints"`
	} `json:"gauge"`
	Sum *struct {
		DataPoints  []dataPoint `json:"dataPoints"`
		Temporality int         `json:"aggregationTemporality"`
		Monotonic   bool        `json:"isMonotonic"`
	} `json:"sum"`
	Histogram *struct {
		DataPoints  []dataPoint `json:"dataPoints"`
		Temporality int         `json:"aggregationTemporality"`
	} `json:"histogram"`
	ExponentialHistogram *struct {
		DataPoints  []dataPoint `json:"dataPoints"`
		Temporality int         `json:"aggregationTemporality"`
	} `json:"exponentialHistogram"`
	Summary *struct {
		DataPoints []dataPoint `json:"dataPoints"`
	} `json:"summary"`
}

// dataPoint has the fields of every kind of OTLP data point that Point keeps.
type dataPoint struct {
	Attributes   []keyValue `json:"attributes"`
	Start        unsigned   `json:"startTimeUnixNano"`
	Time         unsigned   `json:"timeUnixNano"`
	AsDouble     *double    `json:"asDouble"`
	AsInt        *integer   `json:"asInt"`
	Count        unsigned   `json:"count"`
	Sum          double     `json:"sum"`
	BucketCounts []unsigned `json:"bucketCounts"`
	Bounds       []double   `json:"explicitBounds"`
	Min          *double    `json:"min"`
	Max          *double    `json:"max"`
}

var temporalities = []string{"", "delta", "cumulative"}

func (m otlpMetric) metric() (Metric, error) {
	metric := Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
	var points []dataPoint
	temporality := 0
	switch {
	case m.Gauge != nil:
		metric.Type, points = "gauge", m.Gauge.DataPoints
	case m.Sum != nil:
		metric.Type, points, temporality, metric.Monotonic = "sum", m.Sum.DataPoints, m.Sum.Temporality, m.Sum.Monotonic
	case m.Histogram != nil:
		metric.Type, points, temporality = "histogram", m.Histogram.DataPoints, m.Histogram.Temporality
	case m.ExponentialHistogram != nil:
		metric.Type, points, temporality = "exponential_histogram", m.ExponentialHistogram.DataPoints, m.ExponentialHistogram.Temporality
	case m.Summary != nil:
		metric.Type, points = "summary", m.Summary.DataPoints
	default:
		return Metric{}, fmt.Errorf("no data of a known type")
	}
	if temporality < 0 || temporality >= len(temporalities) {
		return Metric{}, fmt.Errorf("aggregation temporality %d: not OTLP's", temporality)
	}
	metric.Temporality = temporalities[temporality]
	for _, p := range points {
		attrs, err := attributes(p.Attributes)
		if err != nil {
			return Metric{}, err
		}
		point := Point{Attributes: attrs, Start: p.Start.time(), Time: p.Time.time(), Count: uint64(p.Count), Sum: float64(p.Sum)}
		switch {
		case p.AsDouble != nil:
			point.Value = float64(*p.AsDouble)
		case p.AsInt != nil:
			point.Value = float64(*p.AsInt)
		}
		for _, b := range p.Bounds {
			point.Bounds = append(point.Bounds, float64(b))
		}
		for _, c := range p.BucketCounts {
			point.Buckets = append(point.Buckets, uint64(c))
		}
		if p.Min != nil {
			v := float64(*p.Min)
			point.Min = &v
		}
		if p.Max != nil {
			v := float64(*p.Max)
			point.Max = &v
		}
		metric.Points = append(metric.Points, point)
	}
	return metric, nil
}

// integer and unsigned are OTLP JSON's 64-bit integers, written as strings (or numbers).
type integer int64

func (i *integer) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseInt(string(bytes.Trim(b, `"`)), 10, 64)
	*i = integer(n)
	return err
}

type unsigned uint64

func (u *unsigned) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseUint(string(bytes.Trim(b, `"`)), 10, 64)
	*u = unsigned(n)
	return err
}

func (u unsigned) time() time.Time {
	if u == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(u))
}

// double is OTLP JSON's double: a number, or "NaN", "Infinity" or "-Infinity".
type double float64

func (d *double) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*d = double(math.NaN())
	case `"Infinity"`:
		*d = double(math.Inf(1))
	case `"-Infinity"`:
		*d = double(math.Inf(-1))
	default:
		f, err := strconv.ParseFloat(string(bytes.Trim(b, `"`)), 64)
		*d = double(f)
		return err
	}
	return nil
}
