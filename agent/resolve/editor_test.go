package resolve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newTestEditor(t *testing.T) (*Editor, string) {
	t.Helper()
	dir := t.TempDir()
	ws, err := NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return NewEditor(ws, []string{"sk-secret-abcdef"}), dir
}

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestResolvePaths(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, "secret.txt", "x")
	e, dir := newTestEditor(t)
	write(t, dir, "pkg/a.py", "x = 1\n")
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "pkg"), filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		wantRel string // "" means refused
		reason  string
	}{
		{"pkg/a.py", "pkg/a.py", ""},
		{"./pkg/../pkg/a.py", "pkg/a.py", ""},
		{filepath.Join(dir, "pkg/a.py"), "pkg/a.py", ""},
		{"in/a.py", "in/a.py", ""},
		{"new/dir/file.py", "new/dir/file.py", ""},
		{"../x", "", "climbs out"},
		{"pkg/../../x", "", "climbs out"},
		{"/etc/passwd", "", "outside the workspace"},
		{filepath.Join(outside, "secret.txt"), "", "outside the workspace"},
		{"out/secret.txt", "", "symlink"},
		{"out/new.txt", "", "symlink"},
		{"out", "", "symlink"},
		{".git/config", "", ".git"},
		{"~/x", "", "home directory"},
		{"", "", "empty"},
		{"a\x00b", "", "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, rel, err := e.ws.Resolve(tt.path)
			if tt.wantRel == "" {
				if err == nil || !strings.Contains(err.Error(), tt.reason) {
					t.Errorf("Resolve(%q) = %q, %v; want refusal with %q", tt.path, rel, err, tt.reason)
				}
				return
			}
			if err != nil || rel != tt.wantRel {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.path, rel, err, tt.wantRel)
			}
		})
	}
}

func TestStrReplace(t *testing.T) {
	const src = "def f():\n    return 1\n\ndef g():\n    return 1\n"
	tests := []struct {
		name    string
		old     string
		new     string
		want    string // observation contains
		failed  bool
		content string // file afterwards
	}{
		{"one match", "def g():\n    return 1", "def g():\n    return 2", "Edited a.py", false, "def f():\n    return 1\n\ndef g():\n    return 2\n"},
		{"two matches", "    return 1", "    return 3", "occurs 2 times in a.py, starting at lines 2, 5", true, src},
		{"no match", "def h():", "def k():", "does not occur verbatim", true, src},
		{"near miss names the line", "def g():\n  return 1", "x", "at line 4", true, src},
		{"delete", "\ndef g():\n    return 1\n", "", "Edited a.py", false, "def f():\n    return 1\n"},
		{"empty old", "", "x", "needs old_str", true, src},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, dir := newTestEditor(t)
			write(t, dir, "a.py", src)
			out, err := e.Do(EditArgs{Command: "str_replace", Path: "a.py", OldStr: tt.old, NewStr: tt.new})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.Text, tt.want) || out.Failed != tt.failed {
				t.Errorf("observation %q failed=%v, want %q failed=%v", out.Text, out.Failed, tt.want, tt.failed)
			}
			if got := read(t, dir, "a.py"); got != tt.content {
				t.Errorf("file now\n%q\nwant\n%q", got, tt.content)
			}
		})
	}
}

func TestEditorCommands(t *testing.T) {
	e, dir := newTestEditor(t)
	write(t, dir, "a.py", "one\ntwo\nthree\n")
	write(t, dir, "bin.dat", "ab\x00cd")
	write(t, dir, "sub/deep/deeper/x.py", "")
	write(t, dir, "long.py", strings.Repeat("value = compute(value)\n", 2000))
	write(t, dir, "huge.txt", strings.Repeat("x = 1\n", MaxViewBytes/5))
	steps := []struct {
		args   EditArgs
		want   string
		failed bool
	}{
		{EditArgs{Command: "view", Path: "a.py"}, "     2\ttwo\n", false},
		{EditArgs{Command: "view", Path: "a.py", ViewRange: []int{2, -1}}, "     3\tthree", false},
		{EditArgs{Command: "view", Path: "a.py", ViewRange: []int{3, 9}}, "outside a.py, which has 3 lines", true},
		{EditArgs{Command: "view", Path: "bin.dat"}, "binary", true},
		{EditArgs{Command: "view", Path: "nope.py"}, "does not exist", true},
		{EditArgs{Command: "view", Path: "long.py"}, "[clipped: long.py has 2000 lines; shown 1-", false},
		{EditArgs{Command: "view", Path: "sub/deep/deeper/x.py"}, "(empty file)", false},
		{EditArgs{Command: "view", Path: "huge.txt", ViewRange: []int{1, 2}}, "too large for the editor", true},
		{EditArgs{Command: "view", Path: "."}, "sub/deep/", false},
		{EditArgs{Command: "insert", Path: "a.py", InsertLine: ptr(1), NewStr: "one and a half"}, "     2\tone and a half", false},
		{EditArgs{Command: "insert", Path: "a.py", InsertLine: ptr(9), NewStr: "x"}, "insert_line 9 is outside", true},
		{EditArgs{Command: "insert", Path: "a.py", NewStr: "x"}, "needs insert_line", true},
		{EditArgs{Command: "create", Path: "a.py", FileText: "x"}, "already exists", true},
		{EditArgs{Command: "create", Path: "reproduce.py", FileText: "print('sk-secret-abcdef')\n"}, "Created reproduce.py", false},
		{EditArgs{Command: "view", Path: "reproduce.py"}, "[redacted]", false},
		{EditArgs{Command: "undo_edit", Path: "a.py"}, "undone", false},
		{EditArgs{Command: "undo_edit", Path: "a.py"}, "no edit of a.py to undo", true},
		{EditArgs{Command: "frob", Path: "a.py"}, "unknown command", true},
	}
	for i, s := range steps {
		out, err := e.Do(s.args)
		if err != nil {
			t.Fatalf("step %d %+v: %v", i, s.args, err)
		}
		out.Text = Scrub(out.Text, e.secrets)
		if !strings.Contains(out.Text, s.want) || out.Failed != s.failed {
			t.Errorf("step %d %s: observation %q failed=%v, want %q failed=%v", i, s.args.Command, out.Text, out.Failed, s.want, s.failed)
		}
	}
	if got := read(t, dir, "a.py"); got != "one\ntwo\nthree\n" {
		t.Errorf("after undo a.py = %q", got)
	}
	if c := e.Created(); len(c) != 1 || c[0] != "reproduce.py" {
		t.Errorf("Created() = %v", c)
	}
	if out, _ := e.Do(EditArgs{Command: "undo_edit", Path: "reproduce.py"}); !strings.Contains(out.Text, "removed") {
		t.Errorf("undoing a create: %q", out.Text)
	}
	if c := e.Created(); len(c) != 0 {
		t.Errorf("Created() after undo = %v", c)
	}
}

func TestEditorToolArgs(t *testing.T) {
	e, dir := newTestEditor(t)
	write(t, dir, "a.py", "x = 1\n")
	tests := []struct{ args, want string }{
		{`{"command":"view","path":"a.py"}`, "x = 1"},
		{`{"command":"view","path":"../../etc/passwd"}`, "climbs out"},
		{`{"command":"view"}`, "needs path"},
		{`{"command":"view","path":"a.py","view_range":"1-2"}`, "do not fit"},
		{`{"command":"str_replace","path":"a.py","old_str":"x = 1","new_str":"x = 2"}`, "Edited a.py"},
	}
	for _, tt := range tests {
		out, err := callTool(e.Tool(), tt.args)
		text := out.Text
		if err != nil {
			text = err.Error()
		}
		if !strings.Contains(text, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.args, text, tt.want)
		}
	}
}

func ptr(n int) *int { return &n }

func TestIsScratch(t *testing.T) {
	tests := map[string]bool{
		"reproduce.py": true, "reproduce_issue.py": true, "repro_bug.py": true, "repro.py": true,
		"tests/scratch_check.py": true, "scratch/x.txt": true,
		"tests/test_parser.py": false, "reproducible/build.py": false, "src/reprocess.py": false,
	}
	for p, want := range tests {
		if got := IsScratch(p); got != want {
			t.Errorf("IsScratch(%q) = %v, want %v", p, got, want)
		}
	}
}

// FuzzEditor feeds arbitrary arguments to the editor and checks that it
// never panics and never touches a file outside the workspace.
func FuzzEditor(f *testing.F) {
	f.Add(`{"command":"view","path":"a.py","view_range":[1,-1]}`)
	f.Add(`{"command":"create","path":"../x","file_text":"y"}`)
	f.Add(`{"command":"str_replace","path":"a.py","old_str":"x","new_str":"y"}`)
	f.Add(`{"command":"insert","path":"/etc/x","insert_line":0,"new_str":"y"}`)
	f.Add(`{"command":"undo_edit","path":"sub/../a.py"}`)
	f.Add(`{"command":"create","path":"out/evil","file_text":"y"}`)
	f.Fuzz(func(t *testing.T, args string) {
		root := t.TempDir()
		ws := filepath.Join(root, "ws")
		outside := filepath.Join(root, "outside")
		for _, d := range []string{ws, outside} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		write(t, ws, "a.py", "x = 1\n")
		if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
			t.Fatal(err)
		}
		w, err := NewWorkspace(ws)
		if err != nil {
			t.Fatal(err)
		}
		e := NewEditor(w, nil)
		var a EditArgs
		if json.Unmarshal([]byte(args), &a) != nil {
			return
		}
		_, _ = e.Do(a)
		if entries, _ := os.ReadDir(outside); len(entries) > 0 {
			t.Fatalf("%s wrote outside the workspace: %v", args, entries)
		}
		if entries, _ := os.ReadDir(root); len(entries) != 2 {
			t.Fatalf("%s wrote beside the workspace", args)
		}
		if abs, _, err := w.Resolve(a.Path); err == nil {
			if _, ok := within(ws, abs); !ok {
				t.Fatalf("Resolve(%q) = %s, outside %s", a.Path, abs, ws)
			}
		}
	})
}
