package sandbox

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// What a command sees of the file system. Folders where secrets and
// sockets live (the home, /tmp, the runtime folders) are covered by empty
// file systems; the workspace, the git directories, the toolchain caches
// and the paths the engineer allows are shown again inside them.

// homeCaches are the toolchain folders beneath a home that tests read:
// installed interpreters and compilers, package caches, virtualenvs. Each
// is shown read-only; the credential files beside them (.cargo/credentials,
// .m2/settings.xml, .gradle/gradle.properties, .gem/credentials) are not.
var homeCaches = []string{
	".pyenv", ".rbenv", ".rustup", ".nvm", ".volta", ".bun", ".deno", ".sdkman/candidates", ".dotnet",
	".cargo/bin", ".cargo/registry", ".cargo/git",
	".npm/_cacache", ".cache/yarn", ".yarn/berry/cache", ".local/share/pnpm", ".cache/pnpm",
	".cache/pip", ".cache/uv", ".local/share/uv", ".local/lib", ".local/bin", ".local/share/virtualenvs",
	".cache/pypoetry/virtualenvs", ".virtualenvs", ".venv", ".conda", "miniconda3", "anaconda3", "miniforge3", "mambaforge",
	".m2/repository", ".gradle/caches", ".gradle/wrapper", ".ivy2/cache", ".cache/coursier", ".sbt/boot",
	".gem/ruby", ".nuget/packages",
}

// toolEnv name folders of installed toolchains: shown read-only where
// they lie beneath a covered folder.
var toolEnv = []string{"VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "NVM_DIR", "CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME",
	"GOROOT", "GEM_HOME", "RBENV_ROOT", "SDKMAN_DIR", "VOLTA_HOME", "PNPM_HOME", "DOTNET_ROOT"}

// goEnv is the Go toolchain's view of its folders, from `go env` (which
// reads the engineer's go env file, hidden from commands).
type goEnv struct{ cache, modCache, path, root string }

// goEnvs remembers `go env` by what it depends on: it takes tens of
// milliseconds, and a process makes a policy per run.
var goEnvs sync.Map

func lookGo() goEnv {
	key := strings.Join([]string{os.Getenv("PATH"), os.Getenv("HOME"), os.Getenv("XDG_CONFIG_HOME"), os.Getenv("XDG_CACHE_HOME"),
		os.Getenv("GOENV"), os.Getenv("GOPATH"), os.Getenv("GOCACHE"), os.Getenv("GOMODCACHE"), os.Getenv("GOROOT")}, "\x00")
	if g, ok := goEnvs.Load(key); ok {
		return g.(goEnv)
	}
	g := runGoEnv()
	goEnvs.Store(key, g)
	return g
}

func runGoEnv() goEnv {
	if _, err := exec.LookPath("go"); err != nil {
		return goEnv{}
	}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
	if err != nil {
		return goEnv{}
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) != 4 {
		return goEnv{}
	}
	return goEnv{cache: f[0], modCache: f[1], path: f[2], root: f[3]}
}

// homes are the engineer's home folders: $HOME and the password file's.
func homes() []string {
	var out []string
	if h, err := os.UserHomeDir(); err == nil {
		out = append(out, h)
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		out = append(out, u.HomeDir)
	}
	return existing(out)
}

// covers are the folders replaced by empty file systems: the homes, the
// temporary folders and the runtime folders where agents keep their
// sockets. writable ones start empty for every command.
func covers() (writable, readOnly []string) {
	writable = existing(append(homes(), "/tmp", "/var/tmp", os.Getenv("TMPDIR")))
	var ro []string
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"} {
		ro = append(ro, os.Getenv(v))
	}
	ro = append(ro, "/run/user")
	for _, p := range existing(ro) {
		if !beneathAny(p, writable) {
			readOnly = append(readOnly, p)
		}
	}
	return writable, readOnly
}

// shownCaches are the toolchain folders to show read-only beneath the
// covered folders: the home caches, the folders the toolchains' variables
// name, the PATH entries, and Go's module cache.
func shownCaches(covered []string, g goEnv) []string {
	var c []string
	for _, h := range homes() {
		for _, rel := range homeCaches {
			c = append(c, filepath.Join(h, rel))
		}
	}
	for _, v := range toolEnv {
		c = append(c, os.Getenv(v))
	}
	c = append(c, filepath.SplitList(os.Getenv("PATH"))...)
	c = append(c, g.modCache, g.root)
	if g.path != "" {
		c = append(c, filepath.Join(filepath.SplitList(g.path)[0], "bin"))
	}
	var out []string
	for _, p := range existing(c) {
		// A cache that is itself a covered folder (PATH holding ~) would
		// show everything the cover hides.
		if beneathAny(p, covered) && !slices.Contains(covered, p) {
			out = append(out, p)
		}
	}
	return out
}

// existing cleans paths, resolves their symbolic links and keeps those
// that exist, once each, never the root.
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		r, err := filepath.EvalSymlinks(p)
		if err != nil || r == "/" || slices.Contains(out, r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// beneath reports whether p is dir or inside it.
func beneath(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

func beneathAny(p string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return beneath(p, d) })
}
