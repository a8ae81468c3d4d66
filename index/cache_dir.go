package index

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// findGitDir looks for the git directory that root belongs to, walking up
// like git does: a .git directory, or a .git file ("gitdir: ...") as in
// worktrees and submodules. It returns the git dir and the common dir that
// worktrees share; both are "" outside a repository.
func findGitDir(root string) (gitDir, commonDir string, err error) {
	for dir := root; ; {
		p := filepath.Join(dir, ".git")
		info, err := os.Stat(p)
		if err == nil {
			gd := p
			if !info.IsDir() {
				gd, err = readGitFile(p)
				if err != nil {
					return "", "", err
				}
			}
			return gd, commonGitDir(gd), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", nil
		}
		dir = parent
	}
}

func readGitFile(p string) (string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	line := strings.TrimSpace(string(data))
	gd, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s: not a gitdir file", p)
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(p), gd)
	}
	return gd, nil
}

// commonGitDir follows a worktree's "commondir" file to the shared dir.
func commonGitDir(gd string) string {
	data, err := os.ReadFile(filepath.Join(gd, "commondir"))
	if err != nil {
		return gd
	}
	cd := strings.TrimSpace(string(data))
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(gd, cd)
	}
	return filepath.Clean(cd)
}

// cacheBase is where the index cache of root lives, as a path that each of
// its files extends (".00.bin", ".links", ".dirs"...): inside the git
// common dir, out of every diff, or in the user's cache dir for plain
// folders. The name carries a hash of the root so that indexing a
// sub-folder or another worktree keeps its own cache.
func cacheBase(root, override string) (string, error) {
	sum := sha1.Sum([]byte(root))
	name := "index-" + hex.EncodeToString(sum[:8])
	if override != "" {
		return filepath.Join(override, name), nil
	}
	_, common, err := findGitDir(root)
	if err == nil && common != "" {
		return filepath.Join(common, "swe-adept", "index", name), nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache dir for %s: %w", root, err)
	}
	return filepath.Join(dir, "swe-adept", "index", name), nil
}
