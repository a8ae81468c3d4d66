package resolve

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func BenchmarkPermissionsCheck(b *testing.B) {
	p := Permissions{Mode: ModeAsk, Workdir: "/work/repo"}
	cmds := []string{
		"python3 -m pytest tests/test_parser.py -q 2>&1 | tail -30",
		"grep -rn 'def parse_header' src/ | head -20 && cat src/http/parse.py",
		`python3 -c "import os; print(os.getcwd())"`,
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p.Check(cmds[i%len(cmds)])
	}
}

// BenchmarkStrReplace edits a 5,000-line file, the size of a large module.
func BenchmarkStrReplace(b *testing.B) {
	dir := b.TempDir()
	ws, err := NewWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	e := NewEditor(ws, nil)
	var src strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&src, "def f%d(x):\n    return x + %d\n", i, i)
	}
	if _, err := e.Do(EditArgs{Command: "create", Path: "big.py", FileText: src.String()}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		old, repl := "def f2500(x):\n    return x + 2500\n", "def f2500(x):\n    return x - 2500\n"
		if i%2 == 1 {
			old, repl = repl, old
		}
		out, err := e.Do(EditArgs{Command: "str_replace", Path: "big.py", OldStr: old, NewStr: repl})
		if err != nil || out.Failed {
			b.Fatalf("%v %s", err, out.Text)
		}
	}
}

// BenchmarkShellRun is the overhead of one command: process group, temp
// output file, capping.
func BenchmarkShellRun(b *testing.B) {
	dir := b.TempDir()
	sh := NewShell(ShellConfig{Workdir: dir, Perm: Permissions{Mode: ModeAuto, Workdir: dir}})
	for i := 0; i < b.N; i++ {
		if _, err := sh.Run(context.Background(), "echo hi", time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}
