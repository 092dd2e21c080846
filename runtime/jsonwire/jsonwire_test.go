package jsonwire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// stdMarshal encodes v as encoding/json does without HTML escaping, our encoder's contract.
func stdMarshal(t testing.TB, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var stringCases = []string{
	"", "plain", `quote " and backslash \`, "tab\tnew\nline\rcr", "\b\f\x00\x01\x1f",
	"<html>&amp;", "é ü 日本語 🎉", "\u2028\u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80",
	"/slash/", "\x7f",
}

func TestEncodeStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range stringCases {
		var e Encoder
		e.String(s)
		if got, want := string(e.Bytes()), stdMarshal(t, s); got != want {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestEncodeFloatMatchesEncodingJSON(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 1e20, 1e21, 123456789e15, 1e-6, 1e-7, 5e-324,
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 3.141592653589793, 100, 1e100,
		// Whole numbers take a faster path: its bounds, and either side of them.
		19, -42, 1e15 - 1, 1e15, 1e15 + 1, -(1e15 - 1), 1 << 24, 1<<24 - 1, 1<<24 + 1, 1<<24 + 2, 1 << 53, 1<<53 + 2,
		123456790528, 16777218, 9007199254740991}
	for i := range 2000 { // integers of every size, and some of them as singles
		floats = append(floats, math.Trunc(math.Pow(10, float64(i%17))*float64(i*7919%1000)/997))
	}
	for _, f := range floats {
		var e Encoder
		e.Float(f, 64)
		if got, want := string(e.Bytes()), stdMarshal(t, f); got != want {
			t.Errorf("Float(%v, 64) = %s, want %s", f, got, want)
		}
		f32 := float32(f)
		if math.IsInf(float64(f32), 0) {
			continue
		}
		e.Reset(nil)
		e.Float(float64(f32), 32)
		if got, want := string(e.Bytes()), stdMarshal(t, f32); got != want {
			t.Errorf("Float(%v, 32) = %s, want %s", f32, got, want)
		}
	}
}

func TestEncodeNaNFails(t *testing.T) {
	var e Encoder
	e.Float(math.NaN(), 64)
	if e.Err() == nil {
		t.Fatal("NaN encoded without error")
	}
}

func TestEncoderCommas(t *testing.T) {
	var e Encoder
	e.ObjectStart()
	e.Key("a")
	e.ArrayStart()
	for i := range 3 {
		e.Elem()
		e.Int(int64(i))
	}
	e.Elem()
	e.ObjectStart()
	e.ObjectEnd()
	e.Elem()
	e.ArrayStart()
	e.ArrayEnd()
	e.ArrayEnd()
	e.Key("b")
	e.Bool(true)
	e.Key("c\"")
	e.Null()
	e.Key("d")
	e.Base64([]byte("hi"))
	e.ObjectEnd()
	want := `{"a":[0,1,2,{},[]],"b":true,"c\"":null,"d":"aGk="}`
	if got := string(e.Bytes()); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestDecodeStringMatchesEncodingJSON(t *testing.T) {
	inputs := []string{`""`, `"abc"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00e9\u65e5"`,
		`"\ud83c\udf89"`, `"\ud83c"`, `"\ud83cx"`, `"\udf89\ud83c"`, `"\ud83c\u0041"`, "\"bad \xff\"",
		"\"é\"", `"\u0000"`}
	for _, in := range inputs {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("encoding/json rejects %s: %v", in, err)
		}
		d := NewDecoder([]byte(in))
		got, ok := d.String()
		d.Finish()
		if !ok || d.Failed() || got != want {
			t.Errorf("String(%s) = %q, %v, %v; want %q", in, got, ok, d.Problems(), want)
		}
	}
}

func TestDecodeIntegers(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		problem string
	}{
		{"0", 0, ""},
		{"-0", 0, ""},
		{"42", 42, ""},
		{"-17", -17, ""},
		{"1.0", 1, ""},
		{"1.000", 1, ""},
		{"1e2", 100, ""},
		{"1.5e1", 15, ""},
		{"9223372036854775807", math.MaxInt64, ""},
		{"-9223372036854775808", math.MinInt64, ""},
		{"9223372036854775808", 0, "must be <= 9223372036854775807"},
		{"-9223372036854775809", 0, "must be >= -9223372036854775808"},
		{"1e30", 0, "must be <= 9223372036854775807"},
		{"1.5", 0, "expected integer, got 1.5"},
		{`"1"`, 0, "expected integer, got string"},
		{"null", 0, "expected integer, got null"},
	}
	for _, tt := range tests {
		d := NewDecoder([]byte(tt.in))
		got, ok := d.Int()
		d.Finish()
		if tt.problem == "" {
			if !ok || d.Failed() || got != tt.want {
				t.Errorf("Int(%s) = %d, %v, %v; want %d", tt.in, got, ok, d.Problems(), tt.want)
			}
			continue
		}
		if ok || d.Summary() != tt.problem {
			t.Errorf("Int(%s): ok=%v problems %q, want %q", tt.in, ok, d.Summary(), tt.problem)
		}
	}
}

func TestDecodeUnsigned(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "18446744073709551615": math.MaxUint64, "2e3": 2000} {
		d := NewDecoder([]byte(in))
		if got, ok := d.Uint(); !ok || got != want {
			t.Errorf("Uint(%s) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for in, problem := range map[string]string{"-1": "must be >= 0", "18446744073709551616": "must be <= 18446744073709551615", "-1e3": "must be >= 0"} {
		d := NewDecoder([]byte(in))
		if _, ok := d.Uint(); ok || d.Summary() != problem {
			t.Errorf("Uint(%s): ok=%v %q, want %q", in, ok, d.Summary(), problem)
		}
	}
}

func TestDecodeFloat32Range(t *testing.T) {
	d := NewDecoder([]byte("1e39"))
	if _, ok := d.Float(32); ok {
		t.Fatal("1e39 accepted as float32")
	}
	d = NewDecoder([]byte("0.1"))
	if f, ok := d.Float(32); !ok || float32(f) != float32(0.1) {
		t.Fatalf("Float(32) = %v, %v", f, ok)
	}
}

func TestProblemsCarryPaths(t *testing.T) {
	in := `{"a": {"b~/c": [1, "x", true]}, "k\u0065y": null, "z": 1}`
	d := NewDecoder([]byte(in))
	for key := range d.Members {
		switch string(key) {
		case "a":
			for range d.Members {
				for range d.Elements {
					d.Int()
				}
			}
		case "key":
			d.String()
		default:
			d.Skip()
		}
	}
	d.ReportMissing("need")
	d.Finish()
	want := "/a/b~0~1c/1: expected integer, got string\n" +
		"/a/b~0~1c/2: expected integer, got boolean\n" +
		"/key: expected string, got null\n" +
		"/need: missing required property"
	if got := d.Summary(); got != want {
		t.Fatalf("problems:\n%s\nwant:\n%s", got, want)
	}
	if d.SyntaxError() {
		t.Fatal("syntax error reported for valid input")
	}
}

func TestTypeMismatchSkipsWholeValue(t *testing.T) {
	d := NewDecoder([]byte(`{"a": {"deep": [1, {"x": "}"}]}, "b": "ok"}`))
	var b string
	for key := range d.Members {
		switch string(key) {
		case "a":
			d.String()
		case "b":
			b, _ = d.String()
		}
	}
	d.Finish()
	if b != "ok" || d.Summary() != "/a: expected string, got object" {
		t.Fatalf("b=%q problems %q", b, d.Summary())
	}
}

func TestSyntaxErrorsStopDecoding(t *testing.T) {
	bad := []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `[1 2]`, `"abc`, `"\x"`, "\"\x01\"", `01`, `1.`,
		`-`, `1e`, `tru`, `nul`, `{"a":1}x`, `{a:1}`, `[`, `"\u12"`, `{"a":1 "b":2}`}
	for _, in := range bad {
		d := NewDecoder([]byte(in))
		d.Skip()
		d.Finish()
		if !d.SyntaxError() {
			t.Errorf("%q accepted as valid JSON", in)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	d := NewDecoder([]byte(deep))
	d.Skip()
	if !d.SyntaxError() || !strings.Contains(d.Summary(), "nested too deeply") {
		t.Fatalf("depth limit not enforced: %s", d.Summary())
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	d = NewDecoder([]byte(ok))
	d.Skip()
	d.Finish()
	if d.Failed() {
		t.Fatalf("depth %d rejected: %s", MaxDepth, d.Summary())
	}
}

func TestProblemCap(t *testing.T) {
	in := "[" + strings.TrimSuffix(strings.Repeat(`"x",`, 80), ",") + "]"
	d := NewDecoder([]byte(in))
	for range d.Elements {
		d.Int()
	}
	if n := len(d.Problems()); n != maxProblems {
		t.Fatalf("%d problems recorded, want %d", n, maxProblems)
	}
	if !strings.HasSuffix(d.Summary(), "(30 more problems not shown)") {
		t.Fatalf("summary does not mention omitted problems: ...%s", d.Summary()[len(d.Summary())-60:])
	}
}

func TestAnyMatchesEncodingJSON(t *testing.T) {
	in := `{"a":[1,2.5,"x",null,true,{"b":{}}],"c":"\u00e9","d":-0.0,"e":1e300}`
	var want any
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	d := NewDecoder([]byte(in))
	got, ok := d.Any()
	d.Finish()
	if !ok || d.Failed() || stdMarshal(t, got) != stdMarshal(t, want) {
		t.Fatalf("Any = %v (%v), want %v", got, d.Problems(), want)
	}
}

func TestRaw(t *testing.T) {
	d := NewDecoder([]byte(`  {"a": [1, 2]} `))
	if got := string(d.Raw()); got != `{"a": [1, 2]}` {
		t.Fatalf("Raw = %q", got)
	}
}

// FuzzSkipAgreesWithValid checks that the decoder accepts exactly the inputs that
// encoding/json considers valid JSON (within the nesting limit), and never panics.
func FuzzSkipAgreesWithValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\ud83c\udf89"`, `-1.5e-3`, `[`, `{"a" 1}`, "\"\xff\"", `[1,]`, ` true `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data)
		d.Skip()
		d.Finish()
		if got, want := !d.SyntaxError(), json.Valid(data); got != want {
			t.Fatalf("decoder valid=%v, encoding/json valid=%v for %q (%s)", got, want, data, d.Summary())
		}
	})
}

// FuzzStringRoundTrip checks string decoding against encoding/json and that encoding
// then decoding returns the same text.
func FuzzStringRoundTrip(f *testing.F) {
	for _, s := range stringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var e Encoder
		e.String(s)
		if want := stdMarshal(t, s); string(e.Bytes()) != want {
			t.Fatalf("String(%q) = %s, want %s", s, e.Bytes(), want)
		}
		var want string
		if err := json.Unmarshal(e.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		d := NewDecoder(e.Bytes())
		got, ok := d.String()
		if !ok || got != want {
			t.Fatalf("decoded %q, want %q", got, want)
		}
	})
}

func TestSpecialValues(t *testing.T) {
	decode := func(in string, read func(*Decoder) (any, bool)) (any, string) {
		d := NewDecoder([]byte(in))
		v, _ := read(d)
		d.Finish()
		return v, d.Summary()
	}
	tests := []struct {
		in      string
		read    func(*Decoder) (any, bool)
		want    any
		problem string
	}{
		{`"1h30m"`, func(d *Decoder) (any, bool) { return d.Duration() }, 90 * time.Minute, ""},
		{`"1x"`, func(d *Decoder) (any, bool) { return d.Duration() }, time.Duration(0), `must be a duration such as "1h30m" or "250ms"`},
		{`"42"`, func(d *Decoder) (any, bool) { return d.QuotedInt() }, int64(42), ""},
		{`"4.2"`, func(d *Decoder) (any, bool) { return d.QuotedInt() }, int64(0), "must be a string holding an integer"},
		{`42`, func(d *Decoder) (any, bool) { return d.QuotedInt() }, int64(0), "expected string, got number"},
		{`"-1"`, func(d *Decoder) (any, bool) { return d.QuotedUint() }, uint64(0), "must be >= 0"},
		{`"1e3"`, func(d *Decoder) (any, bool) { return d.QuotedFloat(64) }, 1000.0, ""},
		{`"true"`, func(d *Decoder) (any, bool) { return d.QuotedBool() }, true, ""},
		{`"yes"`, func(d *Decoder) (any, bool) { return d.QuotedBool() }, false, "must be a string holding true or false"},
		{`"\"hi\""`, func(d *Decoder) (any, bool) { return d.QuotedString() }, "hi", ""},
		{`"hi"`, func(d *Decoder) (any, bool) { return d.QuotedString() }, "", "must be a string holding a JSON string"},
		{` {"a": [1, 2]} `, func(d *Decoder) (any, bool) { return string(d.RawCopy()), true }, `{"a": [1, 2]}`, ""},
	}
	for _, tt := range tests {
		got, problem := decode(tt.in, tt.read)
		if got != tt.want || problem != tt.problem {
			t.Errorf("%s: got %v (%q), want %v (%q)", tt.in, got, problem, tt.want, tt.problem)
		}
	}
	d := NewDecoder(nil)
	if n, ok := d.IntKey([]byte("-7"), 8); !ok || n != -7 {
		t.Errorf("IntKey(-7) = %d %v", n, ok)
	}
	if _, ok := d.IntKey([]byte("300"), 8); ok {
		t.Errorf("IntKey(300, 8) accepted")
	}
	if _, ok := d.UintKey([]byte("-1"), 64); ok {
		t.Errorf("UintKey(-1) accepted")
	}
}

func TestSpecialEncodings(t *testing.T) {
	var e Encoder
	e.ObjectStart()
	e.Key("d")
	e.Duration(90 * time.Minute)
	e.Key("q")
	e.QuotedInt(-5)
	e.Key("f")
	e.QuotedFloat(1.5, 64)
	e.Key("b")
	e.QuotedBool(true)
	e.Key("s")
	e.QuotedString(`a"b`)
	e.Key("raw")
	e.RawJSON([]byte(`[1,{"x":null}]`))
	e.Key("empty")
	e.RawJSON(nil)
	e.IntKey(-3)
	e.Null()
	e.ObjectEnd()
	want := `{"d":"1h30m0s","q":"-5","f":"1.5","b":"true","s":"\"a\\\"b\"","raw":[1,{"x":null}],"empty":null,"-3":null}`
	if got := string(e.Bytes()); got != want || e.Err() != nil {
		t.Fatalf("got %s (%v)\nwant %s", got, e.Err(), want)
	}
	var bad Encoder
	bad.RawJSON([]byte(`{"a":`))
	if bad.Err() == nil {
		t.Fatal("invalid raw JSON written without error")
	}
	m := map[int]string{10: "", 9: "", -1: "", 100: ""}
	if got := fmt.Sprint(IntKeys(m)); got != "[-1 10 100 9]" {
		t.Fatalf("IntKeys = %s, want encoding/json's order [-1 10 100 9]", got)
	}
}

// Skipping a value costs no allocation, escapes and all, and a string with escapes costs one
// (its unescaped copy) however long it is, not one per doubling of a buffer.
func TestStringAllocations(t *testing.T) {
	long := `"` + strings.Repeat(`{\"key\":\"va\\u00e9lue\"}, `, 200) + `"`
	doc := []byte(`{"a":` + long + `,"b":[` + long + `,"\ud83d\ude00"],"c":"plain"}`)
	if n := testing.AllocsPerRun(20, func() {
		var d Decoder
		d.Reset(doc)
		d.Skip()
		if d.Failed() {
			t.Fatal(d.Summary())
		}
	}); n != 0 {
		t.Errorf("Skip: %v allocations, want 0", n)
	}
	data := []byte(long)
	if n := testing.AllocsPerRun(20, func() {
		var d Decoder
		d.Reset(data)
		if _, ok := d.Text(); !ok {
			t.Fatal(d.Summary())
		}
	}); n != 1 {
		t.Errorf("Text of a long escaped string: %v allocations, want 1", n)
	}
}
