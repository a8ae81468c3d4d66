package swebench

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/index"
)

func TestReadInstances(t *testing.T) {
	in := strings.Join([]string{
		`{"instance_id":"a__b-1","repo":"a/b","base_commit":"abc","problem_statement":"it breaks","gold_files":["x.py"]}`,
		`{not json`,
		``,
		`{"instance_id":"a__b-2","repo":"a/b","base_commit":"abc"}`,
		`{"instance_id":"a__b-3","repo":"../b","base_commit":"abc","problem_statement":"p"}`,
		`{"instance_id":"a__b-1","repo":"a/b","base_commit":"abc","problem_statement":"again"}`,
	}, "\n")
	got, bad, err := ReadInstances(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].InstanceID != "a__b-1" {
		t.Fatalf("instances = %+v", got)
	}
	wantLines := []int{2, 4, 5, 6}
	if len(bad) != len(wantLines) {
		t.Fatalf("bad lines = %v", bad)
	}
	for i, b := range bad {
		if b.Line != wantLines[i] {
			t.Errorf("bad[%d] at line %d, want %d (%v)", i, b.Line, wantLines[i], b)
		}
	}
	if !strings.Contains(bad[1].Error(), "missing problem_statement") {
		t.Errorf("missing field error = %v", bad[1])
	}
	task := got[0].Task()
	if task.ProblemStatement != "it breaks" {
		t.Errorf("task = %+v", task)
	}
}

const samplePatch = `diff --git a/pkg/m.py b/pkg/m.py
--- a/pkg/m.py
+++ b/pkg/m.py
@@ -3,4 +3,5 @@ class A:
     def f(self):
-        return 1
+        return 2
+        # more
     def g(self):
@@ -10,2 +11,3 @@ def outer():
     def inner():
+        pass
         return 0
diff --git a/new.py b/new.py
--- /dev/null
+++ b/new.py
@@ -0,0 +1 @@
+x = 1
`

func TestParsePatch(t *testing.T) {
	files, lines := ParsePatch(samplePatch)
	if !reflect.DeepEqual(files, []string{"pkg/m.py", "new.py"}) {
		t.Errorf("files = %v", files)
	}
	if got := lines["pkg/m.py"]; !reflect.DeepEqual(got, []int{4, 4, 4, 10}) {
		t.Errorf("lines = %v", got)
	}
}

func sampleIndex() *index.Index {
	units := []*index.Unit{
		{ID: "pkg/m.py:A", Kind: index.KindClass, Path: "pkg/m.py", Start: 1, End: 8},
		{ID: "pkg/m.py:A.f", Kind: index.KindMethod, Path: "pkg/m.py", Start: 4, End: 6, Parent: "pkg/m.py:A"},
		{ID: "pkg/m.py:A.g", Kind: index.KindMethod, Path: "pkg/m.py", Start: 7, End: 8, Parent: "pkg/m.py:A"},
		{ID: "pkg/m.py:outer", Kind: index.KindFunction, Path: "pkg/m.py", Start: 10, End: 13},
		{ID: "pkg/m.py:outer.inner", Kind: index.KindFunction, Path: "pkg/m.py", Start: 11, End: 12, Parent: "pkg/m.py:outer"},
	}
	f := &index.File{Path: "pkg/m.py", Lang: "python"}
	for _, u := range units {
		f.Units = append(f.Units, u.ID)
	}
	return index.New("/r", []*index.File{f}, units, nil)
}

func TestGoldAndScore(t *testing.T) {
	ix := sampleIndex()
	g := GoldOf(Instance{InstanceID: "x", Patch: samplePatch}, ix)
	if want := []string{"pkg/m.py:A.f", "pkg/m.py:outer"}; !reflect.DeepEqual(g.Functions, want) {
		t.Errorf("gold functions = %v, want %v (nested defs fold into their outer function)", g.Functions, want)
	}
	preds := Normalize(ix, []string{"pkg/m.py:outer.inner", "pkg/m.py:outer", "pkg/m.py:A.g", "pkg/m.py:A.f"})
	if want := []string{"pkg/m.py:outer", "pkg/m.py:A.g", "pkg/m.py:A.f"}; !reflect.DeepEqual(preds, want) {
		t.Errorf("normalized = %v, want %v", preds, want)
	}
	tests := []struct {
		name       string
		files      []string
		funcs      []string
		f1, f3, h5 bool
	}{
		{"all gold in top", []string{"pkg/m.py", "new.py"}, preds, false, true, true},
		{"only one file found", []string{"pkg/m.py", "z.py", "y.py", "w.py"}, preds[:2], false, false, false},
		{"nothing", nil, nil, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScoreOne("x", g, tt.files, tt.funcs)
			if s.File1 != tt.f1 || s.File3 != tt.f3 || s.Func5 != tt.h5 || !s.HasFunc {
				t.Errorf("score = %+v", s)
			}
		})
	}
	sum := Summarize([]Score{{File1: true, File3: true, File5: true, HasFunc: true, Func5: true}, {HasFunc: false}}, []Score{{HasFunc: true}})
	if sum.Instances != 3 || sum.WithFuncs != 2 || sum.FileAcc1 != 1.0/3 || sum.FuncAcc5 != 0.5 {
		t.Errorf("summary = %+v", sum)
	}
}

func TestLocAgentOutput(t *testing.T) {
	o := NewLocAgentOutput("i", []string{"a.py", "a.py"}, []string{"a.py:A.f", "a.py:A.g", "b.py:h"})
	if !reflect.DeepEqual(o.FoundModules, []string{"a.py:A", "b.py:h"}) || len(o.FoundFiles) != 1 {
		t.Errorf("output = %+v", o)
	}
	empty := NewLocAgentOutput("i", nil, nil)
	if empty.FoundFiles == nil || empty.FoundEntities == nil {
		t.Error("empty lists must encode as [], not null")
	}
}

func TestExportAndCheckout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	src := t.TempDir()
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(src, "init", "-q")
	must(t, os.MkdirAll(filepath.Join(src, "pkg"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "pkg", "m.py"), []byte("x = 1\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(src, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	run(src, "add", "-A")
	run(src, "commit", "-qm", "one")
	base := run(src, "rev-parse", "HEAD")
	must(t, os.WriteFile(filepath.Join(src, "pkg", "m.py"), []byte("x = 2\n"), 0o644))
	run(src, "commit", "-qam", "two")

	bare := filepath.Join(t.TempDir(), "mirror")
	run(src, "clone", "-q", "--bare", src, bare)
	dest := filepath.Join(t.TempDir(), "co")
	st, err := Checkout(context.Background(), bare, base, dest)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 2 || st.MissingBlobs != 0 {
		t.Errorf("stats = %+v", st)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "pkg", "m.py")); string(b) != "x = 1\n" {
		t.Errorf("exported content = %q, want the base commit's", b)
	}
	if fi, _ := os.Stat(filepath.Join(dest, "run.sh")); fi == nil || fi.Mode()&0o100 == 0 {
		t.Error("executable bit lost")
	}
	if s := run(dest, "status", "--porcelain"); s != "" {
		t.Errorf("checkout is dirty: %q", s)
	}

	// A blob that is not there is counted, not fatal.
	blob := run(bare, "rev-parse", base+":pkg/m.py")
	must(t, os.Remove(filepath.Join(bare, "objects", blob[:2], blob[2:])))
	st, err = Export(context.Background(), bare, base, t.TempDir())
	if err != nil || st.MissingBlobs != 1 || st.Files != 1 {
		t.Errorf("export with a missing blob = %+v, %v", st, err)
	}
	if _, err := Export(context.Background(), bare, strings.Repeat("1", 40), t.TempDir()); !errors.Is(err, ErrNoCommit) {
		t.Errorf("missing commit error = %v", err)
	}
	if _, err := Export(context.Background(), filepath.Join(t.TempDir(), "nope"), base, t.TempDir()); err == nil {
		t.Error("missing repository must fail")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
