package shapes

import "fmt"

// NewCircle builds a circle; the methods live in another file.
func NewCircle(r float64) *Circle {
	c := &Circle{R: r}
	describe(c)
	return c
}

func describe(s Shape) {
	fmt.Println(s.Area())
}

type Grid[T any] struct {
	cells []T
}

func (g *Grid[T]) Len() int { return len(g.cells) }

func (g *Grid[T]) Empty() bool { return g.Len() == 0 }
