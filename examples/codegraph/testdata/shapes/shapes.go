// Package shapes is a small module the codegraph tests index: interfaces and their
// implementations, calls through them, embedding, function values, tests.
package shapes

import (
	"fmt"
	"io"
	"math"
)

// Shape is a plane figure.
type Shape interface {
	Area() float64
	Perimeter() float64
}

// Solid is a shape with a name.
type Solid interface {
	Shape
	fmt.Stringer
}

// Square is a square.
type Square struct {
	Side float64
}

// Area is the square's area.
func (s Square) Area() float64 { return s.Side * s.Side }

// Perimeter is the square's perimeter.
func (s Square) Perimeter() float64 { return 4 * s.Side }

func (s Square) String() string { return fmt.Sprintf("square %g", s.Side) }

// Circle is a circle.
type Circle struct {
	Radius float64
}

// Area is the circle's area.
func (c *Circle) Area() float64 { return math.Pi * c.Radius * c.Radius }

// Perimeter is the circle's perimeter.
func (c *Circle) Perimeter() float64 { return 2 * math.Pi * c.Radius }

// Labeled is a square with a label; it has the square's methods.
type Labeled struct {
	Square
	Label string
}

// Total adds the areas of shapes.
func Total(shapes []Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}

// Largest is the shape with the largest area.
func Largest(shapes ...Shape) Shape {
	var best Shape
	for _, s := range shapes {
		if best == nil || s.Area() > best.Area() {
			best = s
		}
	}
	return best
}

// Report writes the total area of shapes to w.
func Report(w io.Writer, shapes []Shape) error {
	_, err := fmt.Fprintf(w, "total %.2f\n", Total(shapes))
	return err
}

// Measure is how a shape is measured; Total is one.
var Measure = Total

// Unit is the default shape.
var Unit = NewSquare(1)

// NewSquare makes a square.
func NewSquare(side float64) Square { return Square{Side: side} }

// Counter counts the bytes written to it.
type Counter struct{ N int }

// Write counts p.
func (c *Counter) Write(p []byte) (int, error) {
	c.N += len(p)
	return len(p), nil
}

// Unused is called by nobody yet.
func Unused() {}

// Map applies f to each shape.
func Map[T any](shapes []Shape, f func(Shape) T) []T {
	out := make([]T, 0, len(shapes))
	for _, s := range shapes {
		out = append(out, f(s))
	}
	return out
}
