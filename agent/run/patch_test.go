package run

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/runfolder"
)

func mustTime(s string) time.Time {
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return tm
}

const samplePatch = `diff --git a/pkg/mod.py b/pkg/mod.py
index 1111111..2222222 100644
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -1,2 +1,2 @@
 def f():
-    return 1
+    return 2
diff --git a/reproduce.py b/reproduce.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/reproduce.py
@@ -0,0 +1 @@
+print(1)
diff --git a/tests/repro_case.py b/tests/repro_case.py
new file mode 100644
index 0000000..4444444
--- /dev/null
+++ b/tests/repro_case.py
@@ -0,0 +1,2 @@
+import unittest
+# --- not a header
diff --git a/old.py b/old.py
deleted file mode 100644
index 5555555..0000000
--- a/old.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
diff --git a/empty.txt b/empty.txt
new file mode 100644
index 0000000..e69de29
`

func TestSplitPatch(t *testing.T) {
	got := splitPatch(samplePatch)
	var paths []string
	var added []bool
	for _, d := range got {
		paths = append(paths, d.Path)
		added = append(added, d.Added)
	}
	if want := []string{"pkg/mod.py", "reproduce.py", "tests/repro_case.py", "old.py", "empty.txt"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
	if want := []bool{false, true, true, false, true}; !reflect.DeepEqual(added, want) {
		t.Errorf("added %v, want %v", added, want)
	}
	var joined strings.Builder
	for _, d := range got {
		joined.WriteString(d.Text)
	}
	if joined.String() != samplePatch {
		t.Error("the sections do not add up to the patch")
	}
}

func TestFinalPatch(t *testing.T) {
	extra := "diff --git a/repro.py b/repro.py\nnew file mode 100644\n--- /dev/null\n+++ b/repro.py\n@@ -0,0 +1 @@\n+x\n"
	tests := []struct {
		name        string
		keep        []string
		wantDropped []string
		wantIn      []string
		wantOut     []string
	}{
		{"scratch left out", nil, []string{"reproduce.py", "tests/repro_case.py"}, []string{"pkg/mod.py", "old.py", "empty.txt"}, []string{"b/reproduce.py", "repro_case", "b/repro.py"}},
		{"kept file stays", []string{"tests/repro_case.py"}, []string{"reproduce.py"}, []string{"repro_case"}, []string{"b/reproduce.py"}},
		{"kept file from the merged branch", []string{"repro.py"}, []string{"reproduce.py", "tests/repro_case.py"}, []string{"b/repro.py"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dropped := finalPatch(samplePatch, extra, tt.keep)
			if !reflect.DeepEqual(dropped, tt.wantDropped) {
				t.Errorf("dropped %v, want %v", dropped, tt.wantDropped)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(got, s) {
					t.Errorf("patch lacks %q", s)
				}
			}
			for _, s := range tt.wantOut {
				if strings.Contains(got, s) {
					t.Errorf("patch holds %q", s)
				}
			}
		})
	}
}

func TestPatchStat(t *testing.T) {
	tests := map[string]string{
		"":          "no changes",
		samplePatch: "5 files changed, 4 insertions(+), 2 deletions(-)",
	}
	for in, want := range tests {
		if got := patchStat(in); got != want {
			t.Errorf("patchStat = %q, want %q", got, want)
		}
	}
}

func TestParseLocations(t *testing.T) {
	files, funcs := ParseLocations("1. pkg/a.py:A.f\n- pkg/b.py\n\n  pkg/a.py:g  \npkg/a.py:A.f\n")
	if want := []string{"pkg/a.py:A.f", "pkg/a.py:g"}; !reflect.DeepEqual(funcs, want) {
		t.Errorf("functions %v, want %v", funcs, want)
	}
	if want := []string{"pkg/b.py", "pkg/a.py"}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
}

func TestNewID(t *testing.T) {
	a := runfolder.NewID(mustTime("2026-11-22T04:35:10Z"))
	b := runfolder.NewID(mustTime("2026-11-22T04:36:00Z"))
	if !strings.HasPrefix(a, "20261122-0435-") || len(a) != len("20261122-0435-ab12") || a >= b {
		t.Errorf("ids %q, %q: want short and sortable by time", a, b)
	}
}

func TestScrubWriter(t *testing.T) {
	var b strings.Builder
	w := &scrubWriter{w: &b, secrets: []string{"sk-abcdefgh1234"}, offset: 10}
	if _, err := w.Write([]byte(`{"seq":3,"text":"key sk-abcdefgh1234"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), `{"seq":13,"text":"key [redacted]"}`+"\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
	if err := scrubErr(errors.New("bad key sk-abcdefgh1234"), w.secrets); err.Error() != "bad key [redacted]" {
		t.Errorf("scrubErr: %v", err)
	}
}

func TestCheckLocations(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "a.py"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bus := event.NewBus(nil)
	ch := bus.Subscribe()
	r := &Run{bus: bus}
	files, funcs := r.checkLocations(dir,
		[]string{"pkg/a.py", "../../etc/passwd", "/etc/passwd", "pkg/new.py"},
		[]string{"pkg/a.py:f", "../x.py:g"})
	bus.Close()
	if want := []string{"pkg/a.py", "pkg/new.py"}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if want := []string{"pkg/a.py:f"}; !reflect.DeepEqual(funcs, want) {
		t.Errorf("functions %v, want %v", funcs, want)
	}
	var notes []string
	for e := range ch {
		notes = append(notes, e.Text)
	}
	joined := strings.Join(notes, "\n")
	for _, want := range []string{`"../../etc/passwd" leaves the repository`, `"/etc/passwd" leaves`, `"pkg/new.py": no such file`, `"../x.py:g" leaves`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no notice %q in:\n%s", want, joined)
		}
	}
}
