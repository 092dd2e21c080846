package jsonwire

import (
	"strings"
	"testing"
)

// What a tool's result writes most: short keys, and the structured content's JSON again as
// the text of its content block (quotes every few bytes); and long plain text.
var (
	benchKey  = "conditions"
	benchJSON = `{"city":"Lisbon","current":{"temperature":18.5,"conditions":"light rain","humidity":81},"forecast":[{"day":"Thursday","high":3,"low":-3,"conditions":"light rain"},{"day":"Friday","high":0,"low":-3,"conditions":"overcast"}]}`
	benchText = strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40)
)

func BenchmarkKey(b *testing.B) {
	var e Encoder
	e.Reset(make([]byte, 0, 4<<10))
	for b.Loop() {
		e.Reset(e.buf[:0])
		e.ObjectStart()
		e.Key(benchKey)
	}
}

func BenchmarkString(b *testing.B) {
	for _, c := range []struct{ name, s string }{{"key", benchKey}, {"json", benchJSON}, {"text", benchText}} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 4<<10)
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				buf = appendString(buf[:0], c.s)
			}
		})
	}
}

// Strings are escaped eight bytes at a time (and keys, when plain, not at all): every character that needs a look, at every
// place in and around a word, next to every other (a borrow in the word's test marks the
// byte after a marked one), agrees with encoding/json.
func TestEncodeStringAtEveryPlace(t *testing.T) {
	special := []string{`"`, `\`, "\n", "\x00", "\x01", "\x1f", " ", "#", "]", "\x7f", "é", "日", "🎉", "\u2028", "\u2029", "\xff", "\xc3"}
	for n := range 20 {
		for p := 0; p <= n; p++ {
			for _, a := range special {
				for _, b := range special {
					s := strings.Repeat("a", p) + a + b + strings.Repeat("z", n-p)
					var e Encoder
					e.String(s)
					if got, want := string(e.Bytes()), stdMarshal(t, s); got != want {
						t.Fatalf("String(%q) = %s, want %s", s, got, want)
					}
					e.Reset(nil)
					e.ObjectStart()
					e.Key(s)
					if got, want := string(e.Bytes()), "{"+stdMarshal(t, s)+":"; got != want {
						t.Fatalf("Key(%q) = %s, want %s", s, got, want)
					}
					e.Reset(nil)
					e.StringBytes([]byte(s))
					if got, want := string(e.Bytes()), stdMarshal(t, s); got != want {
						t.Fatalf("StringBytes(%q) = %s, want %s", s, got, want)
					}
				}
			}
		}
	}
}
