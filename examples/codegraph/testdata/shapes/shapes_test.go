package shapes

import "testing"

func TestTotal(t *testing.T) {
	if got := Total([]Shape{Square{Side: 2}, &Circle{}}); got != 4 {
		t.Fatalf("Total = %v", got)
	}
}
