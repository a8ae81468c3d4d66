//go:build !unix

package index

import "os"

// readSource reads a file the walk found; size is a hint unused here.
func readSource(path string, _ int64) ([]byte, error) { return os.ReadFile(path) }
