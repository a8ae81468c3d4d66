//go:build !race

package index

const searchRace = false
