//go:build !linux

package sandboxtest

import "testing"

// WithoutUserNamespaces skips: user namespaces are Linux's, and elsewhere
// the shell is never confined.
func WithoutUserNamespaces(t *testing.T) bool {
	t.Skip("user namespaces are Linux's")
	return false
}
