package shapes_test

import (
	"fmt"

	"example.com/shapes"
)

func ExampleLargest() {
	fmt.Println(shapes.Largest(shapes.NewSquare(2), shapes.NewSquare(3)))
	// Output: square 3
}
