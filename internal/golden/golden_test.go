package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what a check reports.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.fatals = append(r.fatals, fmt.Sprint(args...)) }

func setUpdate(t *testing.T, on bool) {
	old := flag.Lookup("update").Value.String()
	if err := flag.Set("update", fmt.Sprint(on)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("update", old) })
}

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "view.golden")
	tests := []struct {
		name       string
		update     bool
		got        string
		wantErrors []string // each a substring of one reported error, in order
		wantFatal  bool
		wantFile   string
	}{
		{name: "missing", got: "a\n", wantFatal: true},
		{name: "update creates", update: true, got: "one\ntwo\nthree\n", wantFile: "one\ntwo\nthree\n"},
		{name: "same", got: "one\ntwo\nthree\n", wantFile: "one\ntwo\nthree\n"},
		{name: "differs", got: "one\n2\nthree\n", wantErrors: []string{"-two\n+2\n"}, wantFile: "one\ntwo\nthree\n"},
		{name: "update rewrites", update: true, got: "one\n2\nthree\n", wantFile: "one\n2\nthree\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setUpdate(t, tt.update)
			r := &recorder{TB: t}
			CheckFile(r, path, tt.got)
			if (len(r.fatals) > 0) != tt.wantFatal {
				t.Errorf("fatal %q, want fatal %v", r.fatals, tt.wantFatal)
			}
			if len(r.errors) != len(tt.wantErrors) {
				t.Fatalf("errors %q, want %d", r.errors, len(tt.wantErrors))
			}
			for i, w := range tt.wantErrors {
				if !strings.Contains(r.errors[i], w) || !strings.Contains(r.errors[i], "-update") {
					t.Errorf("error %q does not show %q and how to accept it", r.errors[i], w)
				}
			}
			if tt.wantFile != "" {
				if b, _ := os.ReadFile(path); string(b) != tt.wantFile {
					t.Errorf("file holds %q, want %q", b, tt.wantFile)
				}
			}
		})
	}
}

func TestCheckNamesTheFileUnderTestdata(t *testing.T) {
	t.Chdir(t.TempDir())
	setUpdate(t, true)
	Check(t, "TestX/case", "x\n")
	if b, err := os.ReadFile(filepath.Join("testdata", "TestX", "case.golden")); err != nil || string(b) != "x\n" {
		t.Errorf("wrote %q, %v", b, err)
	}
}
