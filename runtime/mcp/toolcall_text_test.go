package mcp

import "testing"

// ReturnText writes what ReturnContent(Text{Text: s}) writes, in every dialect, without
// its allocations.
func TestReturnTextIsOneTextBlock(t *testing.T) {
	for d := range numDialects {
		for _, s := range []string{"", "sunny, 21°C", "quote \" and\nline"} {
			var a, b ToolCall
			a.dialect, b.dialect = d, d
			a.ReturnText(s)
			b.ReturnContent(Text{Text: s})
			if got, want := string(a.finish()), string(b.finish()); got != want {
				t.Errorf("dialect %d: ReturnText(%q) = %s, ReturnContent = %s", d, s, got, want)
			}
		}
	}
	var c ToolCall
	if n := testing.AllocsPerRun(100, func() { c.ReturnText("sunny, 21°C") }); n != 0 {
		t.Errorf("ReturnText allocates %v times, once its buffer has grown", n)
	}
}
