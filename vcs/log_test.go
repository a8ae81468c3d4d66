package vcs

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// historyRepo makes a repository with four commits on main: a module, a
// change to one of its methods, a rename, and a docs-only change.
func historyRepo(t *testing.T) (dir string, hashes []string) {
	t.Helper()
	dir = newRepo(t)
	commit := func(msg string) {
		gitT(t, dir, "add", "-A")
		gitT(t, dir, "commit", "-q", "-m", msg)
		hashes = append(hashes, strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD")))
	}
	write(t, dir, "pkg/shapes.py", "class Polygon:\n    def area(self):\n        return 0\n\n    def scale(self, k):\n        return k\n\n\ndef helper():\n    return 1\n")
	commit("Add shapes")
	write(t, dir, "pkg/shapes.py", "class Polygon:\n    def area(self):\n        return 0\n\n    def scale(self, k):\n        return k * total_factor\n\n\ndef helper():\n    return 1\n")
	commit("Fix polygon scale factor\n\nThe scale ignored the total factor.")
	gitT(t, dir, "mv", "pkg/shapes.py", "pkg/geometry.py")
	commit("Rename shapes to geometry")
	write(t, dir, "README.md", "docs\n")
	commit("Docs only")
	return dir, hashes
}

func readAll(t *testing.T, gitDir string, o LogOptions) []LogCommit {
	t.Helper()
	var out []LogCommit
	if err := ReadLog(context.Background(), gitDir, o, func(c LogCommit) error { out = append(out, c); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReadLog(t *testing.T) {
	dir, hashes := historyRepo(t)
	gitDir := filepath.Join(dir, ".git")
	all := readAll(t, gitDir, LogOptions{Rev: "HEAD", Paths: []string{"*.py"}})
	var msgs []string
	for _, c := range all {
		msgs = append(msgs, strings.SplitN(c.Message, "\n", 2)[0])
	}
	if want := []string{"Rename shapes to geometry", "Fix polygon scale factor", "Add shapes", "initial"}; !slices.Equal(msgs, want) {
		t.Fatalf("commits %q, want %q (the docs-only commit touches no *.py)", msgs, want)
	}
	fix := all[1]
	if fix.Hash != hashes[1] || fix.Time == 0 || !strings.Contains(fix.Message, "ignored the total factor") {
		t.Errorf("fix commit %+v", fix)
	}
	if len(fix.Files) != 1 || fix.Files[0].Path != "pkg/shapes.py" || len(fix.Files[0].Hunks) != 1 {
		t.Fatalf("fix files %+v", fix.Files)
	}
	h := fix.Files[0].Hunks[0]
	if h.NewStart != 6 || h.NewLines != 1 || h.OldStart != 6 || !strings.Contains(h.Func, "def scale") {
		t.Errorf("hunk %+v: want line 6 inside def scale", h)
	}
	if len(h.Added) != 1 || !strings.Contains(h.Added[0], "total_factor") || len(h.Removed) != 1 {
		t.Errorf("hunk lines %+v", h)
	}
	ren := all[0].Files
	if len(ren) != 1 || ren[0].OldPath != "pkg/shapes.py" || ren[0].Path != "pkg/geometry.py" {
		t.Errorf("rename %+v", ren)
	}
	add := all[2].Files
	if len(add) != 1 || add[0].OldPath != "" || add[0].Path != "pkg/shapes.py" {
		t.Errorf("added file %+v", add)
	}
}

// TestReadLogStopsAtRev: only ancestors of the revision are read, and the
// commits already known are left out.
func TestReadLogStopsAtRev(t *testing.T) {
	dir, hashes := historyRepo(t)
	gitDir := filepath.Join(dir, ".git")
	got := readAll(t, gitDir, LogOptions{Rev: hashes[1]})
	if len(got) != 3 || got[0].Hash != hashes[1] {
		t.Fatalf("history of the second commit: %d commits, first %s", len(got), got[0].Hash)
	}
	got = readAll(t, gitDir, LogOptions{Rev: hashes[3], Not: []string{hashes[1]}})
	if len(got) != 2 || got[0].Hash != hashes[3] || got[1].Hash != hashes[2] {
		t.Fatalf("new commits since the second: %+v", got)
	}
	var graph []GraphCommit
	err := ReadGraph(context.Background(), gitDir, hashes[3], []string{hashes[1]}, func(c GraphCommit) error { graph = append(graph, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(graph) != 2 || graph[1].Hash != hashes[2] || graph[1].Time == 0 || !slices.Equal(graph[1].Parents, []string{hashes[1]}) {
		t.Fatalf("graph %+v", graph)
	}
}

// TestReadLogRunsNothingTheRepositoryConfigures: a repository whose config
// and attributes name diff, textconv and signature programs runs none of
// them while its history is read.
func TestReadLogRunsNothingTheRepositoryConfigures(t *testing.T) {
	dir, _ := historyRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	evil := filepath.Join(t.TempDir(), "evil.sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"diff.external", evil}, {"diff.evil.command", evil}, {"diff.evil.textconv", evil},
		{"diff.python.textconv", evil}, {"diff.python.command", evil},
		{"log.showSignature", "true"}, {"gpg.program", evil}, {"core.pager", evil},
		{"core.fsmonitor", evil}, {"diff.python.xfuncname", "^(x)$"},
	} {
		gitT(t, dir, "config", kv[0], kv[1])
	}
	write(t, dir, ".git/info/attributes", "* diff=evil\n")
	got := readAll(t, filepath.Join(dir, ".git"), LogOptions{Rev: "HEAD", Paths: []string{"*.py"}})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("reading history ran a program the repository configured")
	}
	// The repository's own attributes outrank ours, so its driver may
	// name the hunk headers; nothing it names runs.
	if len(got) != 4 || len(got[1].Files) != 1 || len(got[1].Files[0].Hunks) != 1 {
		t.Fatalf("history %+v", got)
	}
}

func TestReadLogRefusesOptionLikeRevisions(t *testing.T) {
	dir, _ := historyRepo(t)
	gitDir := filepath.Join(dir, ".git")
	err := ReadLog(context.Background(), gitDir, LogOptions{Rev: "--output=/tmp/x"}, func(LogCommit) error { return nil })
	if err == nil {
		t.Fatal("an option-like revision was accepted")
	}
	if _, err := ResolveCommit(context.Background(), gitDir, "--all"); err == nil {
		t.Fatal("ResolveCommit accepted an option")
	}
	h, err := ResolveCommit(context.Background(), gitDir, "HEAD~1")
	if err != nil || len(h) != 40 {
		t.Fatalf("ResolveCommit(HEAD~1) = %q, %v", h, err)
	}
}

func TestParseLogHostile(t *testing.T) {
	tests := []struct {
		name, in string
		check    func(t *testing.T, cs []LogCommit)
	}{
		{"message that looks like a diff", "\x00\x00" + strings.Repeat("a", 40) + "\x001\x00subject\ndiff --git a/x b/x\n@@ -1 +1 @@\n+evil\n\x00\n\ndiff --git a/p.py b/p.py\n--- a/p.py\n+++ b/p.py\n@@ -2,0 +3,1 @@ def f():\n+    x = 1\n",
			func(t *testing.T, cs []LogCommit) {
				if len(cs) != 1 || len(cs[0].Files) != 1 || cs[0].Files[0].Path != "p.py" || len(cs[0].Files[0].Hunks) != 1 {
					t.Fatalf("%+v", cs)
				}
				if h := cs[0].Files[0].Hunks[0]; h.NewStart != 3 || h.OldLines != 0 || h.Func != "def f():" {
					t.Errorf("hunk %+v", h)
				}
			}},
		{"bad hash is dropped", "\x00\x00nothex\x001\x00m\x00\n", func(t *testing.T, cs []LogCommit) {
			if len(cs) != 0 {
				t.Errorf("%+v", cs)
			}
		}},
		{"quoted path with spaces", "\x00\x00" + strings.Repeat("b", 40) + "\x002\x00m\x00\ndiff --git \"a/we ird\\tname.py\" \"b/we ird\\tname.py\"\n@@ -1 +1 @@\n-a\n+b\n",
			func(t *testing.T, cs []LogCommit) {
				if len(cs) != 1 || len(cs[0].Files) != 1 || cs[0].Files[0].Path != "we ird\tname.py" {
					t.Errorf("%+v", cs)
				}
			}},
		{"garbage", "@@ -x +y @@\n+++ b/\x00\x00\x00\n\x00\x00", func(t *testing.T, cs []LogCommit) {}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cs []LogCommit
			if err := parseLog(bufio.NewReader(strings.NewReader(tc.in)), func(c LogCommit) error { cs = append(cs, c); return nil }); err != nil {
				t.Fatal(err)
			}
			tc.check(t, cs)
		})
	}
}

func FuzzParseLog(f *testing.F) {
	f.Add("\x00\x00" + strings.Repeat("a", 40) + "\x001\x00m\x00\ndiff --git a/p.py b/p.py\n@@ -1 +1,2 @@ def f\n+x\n-y\n")
	f.Add("\x00\x00\x00\x00\ndiff --git \"a/\\\"\" b\n")
	f.Fuzz(func(t *testing.T, in string) {
		_ = parseLog(bufio.NewReader(strings.NewReader(in)), func(c LogCommit) error {
			if c.Hash == "" {
				t.Fatal("a commit without a hash was reported")
			}
			return nil
		})
	})
}
