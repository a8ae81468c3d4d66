package vcs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseConfigList(t *testing.T) {
	out := strings.Join([]string{
		"global", "file:/home/e/.gitconfig", "filter.lfs.clean\ngit-lfs clean -- %f",
		"global", "file:/home/e/.gitconfig", "filter.lfs.process\ngit-lfs filter-process",
		"local", "file:/r/.git/config", "filter.lfs.clean\nevil",
		"local", "file:/r/.git/config", "filter.a=b.c.smudge\nevil",
		"local", "file:/r/.git/config", "filter.only.required\ntrue",
		"worktree", "file:/r/.git/config.worktree", "hook.lint.command\nevil",
		"local", "file:/r/.git/config", "include.path\n../x.cfg",
		"local", "file:/r/.git/config", "includeif.gitdir:/r/.path\n/tmp/y.cfg",
		"local", "file:/r/.git/config", "core.bare", // a key without a value
		"command", "command line:", "filter.ours.clean\n",
		"",
	}, "\x00")
	rc := parseConfigList(out)
	wantFilters := map[string]map[string]setting{
		"lfs":   {"clean": {"git-lfs clean -- %f", true}, "process": {"git-lfs filter-process", true}},
		"a=b.c": {"smudge": {}}, "only": {"required": {}},
	}
	if fmt.Sprint(rc.filters) != fmt.Sprint(wantFilters) {
		t.Errorf("filters = %v, want %v", rc.filters, wantFilters)
	}
	if !rc.hooks["lint"] || len(rc.hooks) != 1 {
		t.Errorf("hooks = %v, want lint", rc.hooks)
	}
	if len(rc.includes) != 2 || rc.includes[0] != (include{"/r/.git/config", "../x.cfg"}) || rc.includes[1].path != "/tmp/y.cfg" {
		t.Errorf("includes = %v", rc.includes)
	}
	env := rc.guardEnv()
	want := []string{"GIT_CONFIG_COUNT=5",
		"GIT_CONFIG_KEY_0=filter.a=b.c.smudge", "GIT_CONFIG_VALUE_0=",
		"GIT_CONFIG_KEY_1=filter.lfs.clean", "GIT_CONFIG_VALUE_1=git-lfs clean -- %f",
		"GIT_CONFIG_KEY_2=filter.lfs.process", "GIT_CONFIG_VALUE_2=git-lfs filter-process",
		"GIT_CONFIG_KEY_3=filter.only.required", "GIT_CONFIG_VALUE_3=false",
		"GIT_CONFIG_KEY_4=hook.lint.enabled", "GIT_CONFIG_VALUE_4=false"}
	for _, w := range want {
		if !slices.Contains(env, w) {
			t.Errorf("guard lacks %q:\n%s", w, strings.Join(env, "\n"))
		}
	}
	if !rc.hasFilter() {
		t.Error("hasFilter = false")
	}
	if parseConfigList("local\x00f\x00filter.x.required\ntrue\x00").hasFilter() {
		t.Error("a filter with only required set counts as a program")
	}
}

func FuzzParseConfigList(f *testing.F) {
	f.Add("local\x00file:/r/.git/config\x00filter.x.clean\ncat\x00")
	f.Add("global\x00file:/h\x00include.path\n~/a\x00local\x00x\x00hook..command\x00")
	f.Fuzz(func(t *testing.T, out string) {
		rc := parseConfigList(out)
		env := rc.guardEnv()
		if len(env) > 0 && env[0] != fmt.Sprintf("GIT_CONFIG_COUNT=%d", (len(env)-1)/2) {
			t.Fatalf("count %s for %d settings", env[0], (len(env)-1)/2)
		}
		for _, e := range env {
			if strings.ContainsRune(e, 0) {
				t.Fatalf("a NUL in %q", e)
			}
		}
	})
}

// TestTrustedFilterStillRuns: a filter from the engineer's global config
// keeps working (git-lfs), with the commands the global config gives it,
// however the repository redefines it.
func TestTrustedFilterStillRuns(t *testing.T) {
	trusted, trustedRan := evilScript(t, "exec cat")
	evil, evilRan := evilScript(t, "exec cat")
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte(fmt.Sprintf("[filter \"lfs\"]\n\tsmudge = %s\n", trusted)), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := newRepo(t)
	write(t, dir, ".gitattributes", "*.py filter=lfs\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "attributes")
	a := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
	write(t, dir, "app.py", "changed\n")
	gitT(t, dir, "commit", "-q", "-am", "two")
	gitT(t, dir, "config", "filter.lfs.smudge", evil)
	gitT(t, dir, "config", "filter.lfs.clean", evil)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	r := openT(t, dir)
	if err := r.CheckoutDetached(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	assertNotRun(t, evilRan)
	if _, err := os.Stat(trustedRan); err != nil {
		t.Errorf("the global config's smudge filter did not run: %v", err)
	}
}
