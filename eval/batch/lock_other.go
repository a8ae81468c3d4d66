//go:build !unix

package batch

import "os"

// flock is a no-op where advisory locks are not available: the server's
// lease still keeps a second coordinator off a batch run through a queue.
func flock(*os.File) error { return nil }
