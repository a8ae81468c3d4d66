// Package shapes is a sample for the index tests.
package shapes

import "math"

// Shape has an area.
type Shape interface {
	Area() float64
}

type Circle struct {
	R float64
}

type Units = float64

func (c *Circle) Area() float64 {
	return math.Pi * c.R * c.R
}

func (c Circle) Scaled(k float64) Circle {
	return Circle{R: c.R * k}.normalize()
}

func (c Circle) normalize() Circle {
	if c.R < 0 {
		c.R = -c.R
	}
	return c
}

var Default = NewCircle(1)
