//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/swe-adept/swe-adept/agent/event"
)

// TestInPlaceFullDisk runs in-place runs on a small tmpfs that fills up
// just before the run gives the checkout back, at several levels of free
// space. Whatever breaks, the engineer's work is never lost: the run
// either gives the checkout back or says NOT put back first on stderr,
// with the refs and commands; `restore` on the still full disk never
// says there is nothing to restore; `gc --all` keeps every ref that holds
// the work; and once space is freed, the printed command, pasted, puts
// the checkout back byte for byte.
func TestInPlaceFullDisk(t *testing.T) {
	needPython(t)
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=24m,mode=0755"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v): the full-disk matrix needs root or CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	bin := pasteBin(t)
	for i, free := range diskLevels {
		t.Run(fmt.Sprintf("%d KiB free", free>>10), func(t *testing.T) {
			repo := filepath.Join(mnt, fmt.Sprint(i))
			if err := os.Mkdir(repo, 0o755); err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(repo)
			messyCheckoutAt(t, repo)
			before := checkoutState(t, repo)
			filler := filepath.Join(mnt, fmt.Sprintf("filler-%d", i))
			defer os.Remove(filler)
			start := time.Now()
			stderr, runErr := runFillingUp(t, repo, filler, mnt, free)
			first, _, _ := strings.Cut(stderr, "\n")
			t.Logf("the run (%s): %v: %.300s", time.Since(start).Round(time.Millisecond), runErr, first)
			printed := afterAFullDisk(t, repo, before, runErr, stderr)
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			if checkoutState(t, repo) != before {
				cmds := pasted(printed, "swe-adept restore ")
				if len(cmds) == 0 {
					t.Fatalf("nothing printed says how to put the checkout back:\n%s", printed)
				}
				paste(t, bin, cmds[:1])
			}
			if after := checkoutState(t, repo); after != before {
				t.Fatalf("the checkout differs once space was freed and the printed command run:\n%s", diffLines(before, after))
			}
			if out, err := cli(t, repo, "gc", "--repo", repo, "--all").CombinedOutput(); err != nil {
				t.Errorf("gc --all once the checkout is back: %v\n%s", err, out)
			}
		})
	}
}

// runFillingUp starts a run in place that edits a tracked file and adds
// one, and when its last command starts, fills the file system to leave
// free bytes.
func runFillingUp(t *testing.T, repo, filler, mnt string, free int64) (stderr string, runErr error) {
	t.Helper()
	cmd := scriptedRun(t, repo, script(t,
		turn{Content: "Fix it.", ToolCalls: []toolCall{{Name: "str_replace_editor", Arguments: map[string]any{
			"command": "str_replace", "path": "inventory/pricing.py", "old_str": "price * percent)", "new_str": "price * percent / 100)"}}}},
		turn{Content: "Reproduce.", ToolCalls: []toolCall{{Name: "str_replace_editor", Arguments: map[string]any{
			"command": "create", "path": "reproduce.py", "file_text": "print('repro')\n"}}}},
		bash("echo last command")))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	filled := false
	for sc.Scan() {
		var e event.Event
		if filled || json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != event.ToolCall || e.Tool == nil {
			continue
		}
		if e.Tool.Name == "bash" && strings.Contains(e.Tool.Arguments, "last command") {
			fill(t, filler, mnt, free)
			filled = true
		}
	}
	err = cmd.Wait()
	if !filled {
		t.Fatalf("the run never reached its last command: %v\n%s", err, errb.String())
	}
	return errb.String(), err
}

// fill leaves about free bytes on the file system of mnt.
func fill(t *testing.T, path, mnt string, free int64) {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	size := int64(st.Bavail)*st.Bsize - free
	if size <= 0 {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fallocate(int(f.Fd()), 0, 0, size); err != nil {
		t.Fatalf("fill the file system: %v", err)
	}
}

// afterAFullDisk checks what the engineer sees after the run, and what
// `restore` and `gc --all` do while the disk is still full. It returns
// everything printed, for the commands in it.
func afterAFullDisk(t *testing.T, repo, before string, runErr error, stderr string) string {
	t.Helper()
	back := checkoutState(t, repo) == before
	switch {
	case runErr == nil && !back:
		t.Fatalf("the run exited 0 and the checkout differs:\n%s", diffLines(before, checkoutState(t, repo)))
	case !back:
		first, _, _ := strings.Cut(stderr, "\n")
		if !strings.Contains(first, "NOT put back") {
			t.Fatalf("the checkout was not put back, and stderr does not say so first:\n%s", stderr)
		}
		for _, want := range []string{"refs/swe-adept/stash/", "swe-adept restore --repo", "git -C "} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr does not name %q:\n%s", want, stderr)
			}
		}
	}
	refs := gitIn(t, repo, "for-each-ref", "--format=%(refname)", "refs/swe-adept/stash/")
	start := time.Now()
	out, err := cli(t, repo, "restore", "--repo", repo).CombinedOutput()
	first, _, _ := strings.Cut(string(out), "\n")
	t.Logf("restore on the full disk (%s): %v: %.300s", time.Since(start).Round(time.Millisecond), err, first)
	printed := stderr + string(out)
	if checkoutState(t, repo) != before {
		if err == nil || !strings.Contains(string(out), "NOT put back") || strings.Contains(string(out), "nothing to restore") {
			t.Fatalf("restore on a full disk left the checkout unrestored and said: %v\n%s", err, out)
		}
	}
	gc, _ := cli(t, repo, "gc", "--repo", repo, "--all").CombinedOutput()
	printed += string(gc)
	if checkoutState(t, repo) != before {
		kept := gitIn(t, repo, "for-each-ref", "--format=%(refname)", "refs/swe-adept/stash/")
		for _, ref := range strings.Fields(refs) {
			if !strings.Contains(kept, ref+"\n") {
				t.Fatalf("gc --all deleted %s while the checkout was not back:\n%s", ref, gc)
			}
		}
	}
	return printed
}

// diskLevels are the free spaces the matrix runs at, from nothing to more
// than the give-back needs.
var diskLevels = []int64{0, 4 << 10, 16 << 10, 48 << 10, 96 << 10, 128 << 10, 144 << 10, 160 << 10, 256 << 10, 1 << 20}
