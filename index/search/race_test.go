//go:build race

package search

// searchRace is set when the tests run under the race detector, which makes
// indexing a large corpus too slow for a test.
const searchRace = true
