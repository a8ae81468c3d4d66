//go:build race

package cli

// raceDetector: this test binary is built with -race, which makes every
// whole run it starts as a process many times slower.
const raceDetector = true
