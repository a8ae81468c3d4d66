package parse

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanHeaderMatchesTreeSitter compiles each C scanner with the real
// api.h of the go-tree-sitter module this build links, included before
// scan.h. The compiler then rejects any prototype in scan.h that differs
// from the library's, and scan.h's static assertions reject any copied
// struct whose size, alignment or field offsets differ (see scan.h).
func TestScanHeaderMatchesTreeSitter(t *testing.T) {
	api := treeSitterAPI(t)
	cc := cCompiler(t)
	sources, err := filepath.Glob("*.c")
	if err != nil || len(sources) == 0 {
		t.Fatalf("no C scanners found: %v", err)
	}
	for _, src := range sources {
		t.Run(src, func(t *testing.T) {
			args := append(cc[1:len(cc):len(cc)], "-fsyntax-only", "-include", api, src)
			out, err := exec.Command(cc[0], args...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s does not compile against %s: %v\n%s", src, api, err, out)
			}
		})
	}
}

// treeSitterAPI is the path of api.h in the go-tree-sitter module the
// build uses.
func treeSitterAPI(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/smacker/go-tree-sitter").Output()
	if err != nil {
		t.Fatalf("locate the go-tree-sitter module: %v", err)
	}
	api := filepath.Join(strings.TrimSpace(string(out)), "api.h")
	if _, err := os.Stat(api); err != nil {
		t.Fatalf("tree-sitter's header: %v", err)
	}
	return api
}

// cCompiler is the C compiler cgo uses, as a command and its arguments.
func cCompiler(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "CC").Output()
	if err != nil {
		t.Fatalf("go env CC: %v", err)
	}
	cc := strings.Fields(string(out))
	if len(cc) == 0 {
		t.Fatal("go env CC names no compiler")
	}
	return cc
}
