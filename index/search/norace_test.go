//go:build !race

package search

const searchRace = false
