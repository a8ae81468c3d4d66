package vcs

import (
	"golang.org/x/sys/unix"
)

// freeSpace is the space an unprivileged writer may use on dir's file
// system, its free inodes (-1 when the file system does not count them)
// and its block size.
func freeSpace(dir string) (free, inodes, block int64, ok bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, 0, false
	}
	inodes = -1
	if st.Files > 0 {
		inodes = int64(st.Ffree)
	}
	return int64(st.Bavail) * st.Bsize, inodes, st.Bsize, true
}

// sameFS reports whether a and b are on one file system.
func sameFS(a, b string) bool {
	var sa, sb unix.Stat_t
	if unix.Stat(a, &sa) != nil || unix.Stat(b, &sb) != nil {
		return true
	}
	return sa.Dev == sb.Dev
}
