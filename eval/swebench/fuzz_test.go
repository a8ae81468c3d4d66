package swebench

import (
	"strings"
	"testing"
)

// FuzzReadInstances: an instances file is untrusted input. Reading never
// panics, every instance returned has the fields a run needs, and every
// malformed line is reported with a line number inside the file.
func FuzzReadInstances(f *testing.F) {
	f.Add(`{"instance_id":"a__b-1","repo":"a/b","base_commit":"abc","problem_statement":"p"}` + "\n{bad\n")
	f.Add("\n\n")
	f.Add(`{"instance_id":"x","repo":"../../etc","base_commit":"c","problem_statement":"p"}`)
	f.Fuzz(func(t *testing.T, data string) {
		got, bad, err := ReadInstances(strings.NewReader(data))
		if err != nil {
			return // a line longer than the reader's limit
		}
		lines := strings.Count(data, "\n") + 1
		for _, b := range bad {
			if b.Line < 1 || b.Line > lines {
				t.Fatalf("bad line number %d in a %d-line file", b.Line, lines)
			}
		}
		for _, in := range got {
			if in.InstanceID == "" || in.BaseCommit == "" || strings.Contains(in.Repo, "..") || strings.Count(in.Repo, "/") != 1 {
				t.Fatalf("accepted an unusable instance %+v", in)
			}
		}
	})
}

// FuzzParsePatch: a patch from an instance never panics the parser, and
// every line it reports is a positive base line of a file it lists.
func FuzzParsePatch(f *testing.F) {
	f.Add(samplePatch)
	f.Add("diff --git a/x b/x\n+++ b/x\n@@ -0,0 +1 @@\n+a\n")
	f.Add("@@ -a,b +c,d @@\n-x\n")
	f.Fuzz(func(t *testing.T, patch string) {
		files, lines := ParsePatch(patch)
		listed := map[string]bool{}
		for _, f := range files {
			listed[f] = true
		}
		for path, ls := range lines {
			if !listed[path] {
				t.Fatalf("lines for %q, which is not among the files %v", path, files)
			}
			for _, l := range ls {
				if l < 1 {
					t.Fatalf("line %d for %q", l, path)
				}
			}
		}
	})
}
