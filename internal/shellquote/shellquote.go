// Package shellquote writes words a POSIX shell reads back as they are,
// for the commands swe-adept prints for the engineer to paste: a path or
// a branch name may hold spaces, quotes or $, and must not change the
// command.
package shellquote

import "strings"

// safe are the bytes that never need quoting.
const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,"

// Quote makes s one shell word, quoting only when it has to: inside single
// quotes nothing is special except the quote itself, which is closed,
// escaped with a backslash and reopened.
func Quote(s string) string {
	if s != "" && strings.Trim(s, safe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
