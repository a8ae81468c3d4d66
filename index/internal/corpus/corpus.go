// Package corpus names the real code that the index's benchmarks and
// corpus tests run on: the Python standard library and, when the Debian
// packages python3-django and python3-sympy are installed, Django and
// SymPy; and TypeScript and JavaScript from npm packages that ship their
// sources, unpacked under $SWE_ADEPT_NPM (see scripts/npm-corpora.sh). A
// missing corpus skips what would run on it.
package corpus

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Corpus is one tree of real code.
type Corpus struct {
	Name, Dir string
	Script    bool   // JavaScript and TypeScript rather than Python
	Hint      string // how to install it
}

// All lists the corpora, installed or not.
func All() []Corpus {
	var cs []Corpus
	if dir, err := PythonStdlib(); err == nil {
		cs = append(cs, Corpus{Name: "stdlib", Dir: dir})
	}
	cs = append(cs,
		Corpus{Name: "django", Dir: "/usr/lib/python3/dist-packages/django", Hint: "apt-get install python3-django"},
		Corpus{Name: "sympy", Dir: "/usr/lib/python3/dist-packages/sympy", Hint: "apt-get install python3-sympy"})
	npm := os.Getenv("SWE_ADEPT_NPM")
	if npm == "" {
		npm = filepath.Join(os.TempDir(), "swe-adept-npm")
	}
	hint := "scripts/npm-corpora.sh " + npm
	cs = append(cs,
		Corpus{Name: "rxjs", Dir: filepath.Join(npm, "rxjs", "package", "src"), Script: true, Hint: hint},
		Corpus{Name: "effect", Dir: filepath.Join(npm, "effect", "package", "src"), Script: true, Hint: hint},
		Corpus{Name: "webpack", Dir: filepath.Join(npm, "webpack", "package", "lib"), Script: true, Hint: hint})
	return cs
}

// Installed is whether the corpus is on this machine.
func (c Corpus) Installed() bool {
	info, err := os.Stat(c.Dir)
	return err == nil && info.IsDir()
}

// Each runs fn as a sub-benchmark per corpus, skipping those not installed.
func Each(b *testing.B, fn func(b *testing.B, c Corpus)) {
	for _, c := range All() {
		b.Run(c.Name, func(b *testing.B) {
			if !c.Installed() {
				b.Skipf("corpus %s not found at %s (install it: %s)", c.Name, c.Dir, cmp.Or(c.Hint, "python3"))
			}
			fn(b, c)
		})
	}
}

// PythonStdlib is where python3's standard library lives.
func PythonStdlib() (string, error) {
	out, err := exec.Command("python3", "-c", `import sysconfig;print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		return "", fmt.Errorf("no python3 to find the standard library: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// StdlibOrSkip is PythonStdlib for tests, which skip without it or in
// short mode.
func StdlibOrSkip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("reads the Python standard library")
	}
	dir, err := PythonStdlib()
	if err != nil {
		t.Skip(err)
	}
	return dir
}
