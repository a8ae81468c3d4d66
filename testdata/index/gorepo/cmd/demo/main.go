package main

import (
	"fmt"

	geo "example.com/geo/shapes"
)

func main() {
	c := geo.NewCircle(2)
	fmt.Println(c.Area(), total(c))
	func() { helper() }()
}

func total(s geo.Shape) float64 { return s.Area() }

func helper() {}
