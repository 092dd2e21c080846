// Command shapes prints the areas of a few shapes.
package main

import (
	"fmt"
	"os"

	"example.com/shapes"
)

func main() {
	all := []shapes.Shape{shapes.NewSquare(2), &shapes.Circle{Radius: 1}, shapes.Labeled{Square: shapes.Unit, Label: "unit"}}
	var c shapes.Counter
	if err := shapes.Report(&c, all); err != nil {
		os.Exit(1)
	}
	fmt.Println(shapes.Total(all), c.N, shapes.Map(all, shapes.Shape.Perimeter))
	areas := shapes.Map(all, func(s shapes.Shape) float64 { return s.Area() })
	fmt.Println(areas, shapes.Measure(all))
}
