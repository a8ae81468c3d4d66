package vcs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Settings that name a driver make git run a program: filter.<name>.clean,
// .smudge and .process on the files .gitattributes sends to them, and
// hook.<name>.command. configOverrides cannot pin them, since the names are
// the repository's own; readConfig reads them when a repository is opened,
// before any command of a run, and pins each one:
//
//   - a filter keeps the commands the engineer's own global (or system)
//     configuration gives it, so a git-lfs installed there still works;
//     each setting only other files give it (the repository's config, an
//     included file) is blanked, and a blank filter passes bytes through.
//     Settings no file gives stay unset: a blank process would disable
//     the trusted clean and smudge as well;
//   - a hook by name is switched off.
//
// A name added later can only come from a file git reads during the run:
// the git directories are read-only to the agent, and a workspace that
// includes a file from its own working tree is refused (checkIncludes).

// trustedScopes are the configuration files only the engineer writes.
var trustedScopes = map[string]bool{"system": true, "global": true}

// filterVars are a filter's settings, with the value that disables each.
var filterVars = []struct{ name, off string }{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}}

// repoConfig is what readConfig found in a repository's configuration.
type repoConfig struct {
	filters  map[string]map[string]setting // name → variable → what to pin
	programs bool                          // some filter names a program, in any scope
	hooks    map[string]bool               // hook names
	includes []include
}

// setting is a filter variable some file sets, and its value in the
// trusted files, if they set it.
type setting struct {
	value   string
	trusted bool
}

// include is one include.path or includeIf.<cond>.path setting.
type include struct{ origin, path string }

// readConfig lists every setting git sees for the repository with its scope
// and file, and keeps what the guard needs.
func (r *Repo) readConfig(ctx context.Context) (repoConfig, error) {
	out, err := r.cmd("config", "--list", "-z", "--show-scope", "--show-origin").run(ctx)
	if err != nil {
		return repoConfig{}, fmt.Errorf("read the git configuration of %s: %w", r.dir, err)
	}
	return parseConfigList(string(out)), nil
}

// parseConfigList reads `git config --list -z --show-scope --show-origin`:
// scope NUL origin NUL key [LF value] NUL, repeated.
func parseConfigList(out string) repoConfig {
	rc := repoConfig{filters: map[string]map[string]setting{}, hooks: map[string]bool{}}
	f := strings.Split(out, "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		scope, origin := f[i], f[i+1]
		key, value, _ := strings.Cut(f[i+2], "\n")
		if scope == "command" {
			continue // ours
		}
		section, rest, _ := strings.Cut(key, ".")
		name, variable := "", rest
		if j := strings.LastIndexByte(rest, '.'); j >= 0 {
			name, variable = rest[:j], rest[j+1:]
		}
		switch {
		case section == "filter" && name != "" && isFilterVar(variable):
			if rc.filters[name] == nil {
				rc.filters[name] = map[string]setting{}
			}
			if trustedScopes[scope] {
				rc.filters[name][variable] = setting{value, true}
			} else if _, ok := rc.filters[name][variable]; !ok {
				rc.filters[name][variable] = setting{}
			}
			rc.programs = rc.programs || variable != "required"
		case section == "hook" && name != "" && variable == "command":
			rc.hooks[name] = true
		case (section == "include" && name == "" || section == "includeif" && name != "") && variable == "path":
			rc.includes = append(rc.includes, include{origin: strings.TrimPrefix(origin, "file:"), path: value})
		}
	}
	return rc
}

// hasFilter: some configuration names a program for a filter (the guard
// may blank it for our git, but the engineer's git would still run it).
func (rc repoConfig) hasFilter() bool {
	return rc.programs
}

func isFilterVar(v string) bool {
	for _, fv := range filterVars {
		if fv.name == v {
			return true
		}
	}
	return false
}

// guardEnv pins the drivers found as GIT_CONFIG_COUNT settings: unlike -c,
// they carry a name with '=' in it intact.
func (rc repoConfig) guardEnv() []string {
	var kv [][2]string
	for _, name := range sortedKeys(rc.filters) {
		for _, fv := range filterVars {
			set, ok := rc.filters[name][fv.name]
			if !ok {
				continue
			}
			v := fv.off
			if set.trusted {
				v = set.value
			}
			kv = append(kv, [2]string{"filter." + name + "." + fv.name, v})
		}
	}
	for _, name := range sortedKeys(rc.hooks) {
		kv = append(kv, [2]string{"hook." + name + ".enabled", "false"})
	}
	if len(kv) == 0 {
		return nil
	}
	env := []string{fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(kv))}
	for i, p := range kv {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, p[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, p[1]))
	}
	return env
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkIncludes refuses a configuration that includes a file from inside
// the working tree: whoever edits the tree could then configure our git.
// The included file need not exist yet.
func (r *Repo) checkIncludes() error {
	top := realPath(r.dir)
	home, _ := os.UserHomeDir()
	for _, inc := range r.conf.includes {
		p := inc.path
		switch {
		case strings.HasPrefix(p, "~/") && home != "":
			p = filepath.Join(home, p[2:])
		case !filepath.IsAbs(p):
			p = filepath.Join(filepath.Dir(inc.origin), p)
		}
		if _, ok := within(top, resolveLoose(p)); ok {
			return fmt.Errorf("the git configuration %s includes %s, inside the working tree %s that the agent edits: "+
				"it could configure the run's own git there; move the include out of the repository, or work without --in-place",
				inc.origin, inc.path, r.dir)
		}
	}
	return nil
}

// resolveLoose resolves symlinks in p as far as the path exists, following
// a dangling symlink at the end too (it may be filled in later).
func resolveLoose(p string) string {
	for range 40 {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		dir, base := filepath.Split(filepath.Clean(p))
		target, err := os.Readlink(p)
		if err != nil {
			return filepath.Join(resolveLoose(filepath.Clean(dir)), base)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		p = target
	}
	return filepath.Clean(p)
}

// within returns target relative to root if target is root or below it.
func within(root, target string) (string, bool) {
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
