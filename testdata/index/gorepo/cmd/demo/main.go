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

func literals() {
	var g geo.Grid[int]
	p := &geo.Circle{R: 1}
	it := it0()
	it = it.Next()
	_ = g.Empty() && p.Scaled(2).R > 0
}

type iter struct{}

func it0() iter { return iter{} }

func (i iter) Next() iter {
	n := i.Next()
	return n.Next()
}

func helper() {}
