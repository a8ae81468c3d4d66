package vcs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/internal/golden"
)

// hypothesisRepo builds the shape a resolution run leaves: the original
// state, a base with a reproduction script, and a hypothesis branch with two
// checkpoints, a scratch file and a binary change.
func hypothesisRepo(t *testing.T) (dir, original, branch string) {
	t.Helper()
	dir = newRepo(t)
	original = strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
	gitT(t, dir, "checkout", "-q", "-b", "swe-adept/r1/h1")
	write(t, dir, "reproduce_issue.py", "import app\nassert app.main() == 2\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "base: reproduction")
	write(t, dir, "app.py", "def main():\n    return 2\n")
	gitT(t, dir, "commit", "-q", "-am", "fix main")
	write(t, dir, "lib/util.py", "X = 1\n")
	write(t, dir, "lib/added.py", "def helper():\n    pass\n")
	write(t, dir, "scratch/notes.txt", "thinking\n")
	write(t, dir, "data.bin", "\x00new binary\x00\x01")
	gitT(t, dir, "rm", "-q", "gone.txt")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "helpers")
	return dir, original, "swe-adept/r1/h1"
}

func TestDiffStatMatchesCLI(t *testing.T) {
	ctx := context.Background()
	dir, original, branch := hypothesisRepo(t)
	r := openT(t, dir)
	tests := []struct {
		name     string
		from, to string
		exclude  []string
	}{
		{"all", original, branch, nil},
		{"exclude scratch", original, branch, []string{"reproduce_issue.py", "scratch/"}},
		{"exclude glob", original, branch, []string{"*.py"}},
		{"one step", branch + "~1", branch, nil},
		{"deletions only", branch, branch + "~1", []string{"app.py", "lib/util.py", "scratch", "data.bin", "gone.txt"}},
		{"none", branch, branch, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := r.DiffStat(ctx, tt.from, tt.to, tt.exclude...)
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{"diff", "--no-renames", "--shortstat", tt.from, tt.to}, pathspecs(tt.exclude)...)
			want := strings.TrimSpace(gitT(t, dir, args...))
			if want == "" {
				want = "0 files changed"
			}
			if d.Short() != want {
				t.Errorf("Short() = %q, git says %q", d.Short(), want)
			}
			args = append([]string{"diff", "--no-renames", "--numstat", tt.from, tt.to}, pathspecs(tt.exclude)...)
			var lines []string
			for _, f := range d.Files {
				if f.Binary {
					lines = append(lines, "-\t-\t"+f.Path)
				} else {
					lines = append(lines, fmt.Sprintf("%d\t%d\t%s", f.Insertions, f.Deletions, f.Path))
				}
			}
			if got, want := strings.Join(lines, "\n"), strings.TrimSpace(gitT(t, dir, args...)); got != want {
				t.Errorf("numstat:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestPatchAppliesWithGitApply(t *testing.T) {
	ctx := context.Background()
	dir, original, branch := hypothesisRepo(t)
	r := openT(t, dir)
	patch, err := r.Patch(ctx, original, branch, "reproduce_issue.py", "scratch")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"diff --git a/app.py b/app.py", "GIT binary patch", "deleted file mode"} {
		if !strings.Contains(patch, want) {
			t.Errorf("patch lacks %q", want)
		}
	}
	if strings.Contains(patch, "reproduce_issue.py") || strings.Contains(patch, "scratch/") {
		t.Error("patch holds excluded paths")
	}
	gitT(t, dir, "checkout", "-q", "--detach", original)
	if out, err := gitRaw(dir, []byte(patch), "apply", "--check"); err != nil {
		t.Fatalf("git apply --check: %v\n%s", err, out)
	}
}

func TestPatchWorkTree(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	makeDirty(t, dir)
	before := stateOf(t, dir)
	r := openT(t, dir)
	patch, err := r.PatchWorkTree(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	diffState(t, before, stateOf(t, dir))
	for _, want := range []string{"b/notes/todo.txt", "b/lib/staged_new.py", "a/old.txt", "a/gone.txt", "new file mode 100755"} {
		if !strings.Contains(patch, want) {
			t.Errorf("working-tree patch lacks %q", want)
		}
	}
	if strings.Contains(patch, "debug.log") {
		t.Error("working-tree patch holds an ignored file")
	}
}

func TestApplyBranchOntoOriginal(t *testing.T) {
	ctx := context.Background()
	dir, original, branch := hypothesisRepo(t)
	r := openT(t, dir)
	exclude := []string{"reproduce_issue.py", "scratch/"}
	sol, err := r.ApplyBranchOntoOriginal(ctx, branch, original, exclude...)
	if err != nil {
		t.Fatal(err)
	}
	want := gitT(t, dir, append([]string{"diff", "--binary", original, branch}, pathspecs(exclude)...)...)
	if got := gitT(t, dir, "diff", "--binary", original, sol); got != want {
		t.Errorf("diff original..solution =\n%s\nwant\n%s", got, want)
	}
	if parent := strings.TrimSpace(gitT(t, dir, "rev-parse", sol+"^")); parent != original {
		t.Errorf("solution parent %s, want the original %s", parent, original)
	}
	if head := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD")); head != sol {
		t.Errorf("HEAD %s, want the solution %s", head, sol)
	}
	if _, err := gitRaw(dir, nil, "symbolic-ref", "-q", "HEAD"); err == nil {
		t.Error("HEAD is on a branch, want detached")
	}
	if st := gitT(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("status = %q, want clean", st)
	}
	patch, err := r.Patch(ctx, original, sol)
	if err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "checkout", "-q", "--detach", original)
	if out, err := gitRaw(dir, []byte(patch), "apply", "--check"); err != nil {
		t.Fatalf("final patch does not apply to the original: %v\n%s", err, out)
	}

	_, err = r.ApplyBranchOntoOriginal(ctx, branch+"~2", original, "reproduce_issue.py")
	if !errors.Is(err, ErrNothingToCommit) {
		t.Errorf("branch with only excluded changes: err = %v, want ErrNothingToCommit", err)
	}
}

func TestShortStatFormat(t *testing.T) {
	tests := []struct {
		d    DiffStat
		want string
	}{
		{DiffStat{}, "0 files changed"},
		{DiffStat{Files: make([]FileStat, 1), Insertions: 1}, "1 file changed, 1 insertion(+)"},
		{DiffStat{Files: make([]FileStat, 1), Deletions: 1}, "1 file changed, 1 deletion(-)"},
		{DiffStat{Files: make([]FileStat, 2), Insertions: 5, Deletions: 1}, "2 files changed, 5 insertions(+), 1 deletion(-)"},
		{DiffStat{Files: make([]FileStat, 1)}, "1 file changed, 0 insertions(+), 0 deletions(-)"},
	}
	for _, tt := range tests {
		if got := tt.d.Short(); got != tt.want {
			t.Errorf("Short() = %q, want %q", got, tt.want)
		}
	}
}

func FuzzParseNumstat(f *testing.F) {
	f.Add("1\t2\ta.py\x00-\t-\tb.bin\x00")
	f.Add("x\ty\tz")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseNumstat(s)
		if err != nil {
			return
		}
		sum := 0
		for _, fs := range d.Files {
			sum += fs.Insertions
		}
		if sum != d.Insertions {
			t.Errorf("insertions %d, files sum to %d", d.Insertions, sum)
		}
	})
}

// The final patch is what a run submits: its exact text is pinned (blob
// hashes depend only on content, so it is stable; binary literals depend on
// the zlib build, so data.bin is left out here).
func TestPatchGolden(t *testing.T) {
	ctx := context.Background()
	dir, original, branch := hypothesisRepo(t)
	patch, err := openT(t, dir).Patch(ctx, original, branch, "reproduce_issue.py", "scratch/", "data.bin")
	if err != nil {
		t.Fatal(err)
	}
	golden.CheckFile(t, filepath.Join("testdata", t.Name(), "final.patch"), patch)
}

// Paths with spaces, tabs-free unicode and quotes come through status,
// numstat and patches unmangled.
func TestUnusualPaths(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r := openT(t, dir)
	base := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
	names := []string{"dir with space/file name.py", "ünïcode/ß.py", `quote"d.py`}
	for _, n := range names {
		write(t, dir, n, "x = 1\n")
	}
	cs, err := r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, c := range cs {
		got[c.Path] = true
	}
	for _, n := range names {
		if !got[n] {
			t.Errorf("Status lacks %q: %+v", n, cs)
		}
	}
	c, err := r.CommitAll(ctx, "unusual names")
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.DiffStat(ctx, base, c, "ünïcode")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 2 || d.Short() != "2 files changed, 2 insertions(+)" {
		t.Errorf("DiffStat excluding ünïcode/ = %+v", d)
	}
	patch, err := r.Patch(ctx, base, c)
	if err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "checkout", "-q", "--detach", base)
	if out, err := gitRaw(dir, []byte(patch), "apply", "--check"); err != nil {
		t.Fatalf("git apply --check: %v\n%s\n%s", err, out, patch)
	}
}
