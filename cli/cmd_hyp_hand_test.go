package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hyp runs `swe-adept hyp` as the engineer would.
func hypCLI(t *testing.T, repo string, args ...string) string {
	t.Helper()
	out, err := cli(t, repo, append([]string{"hyp"}, append(args, "--repo", repo)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("hyp %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestHypByHandGivesTheCheckoutBack walks the hypothesis tools by hand on
// a checkout with staged, unstaged, deleted, untracked and ignored files:
// without a merge, finish gives it back exactly; with one, exactly plus
// the solution as uncommitted changes. Meanwhile the work is never folded
// into the base, and no in-place run can start.
func TestHypByHandGivesTheCheckoutBack(t *testing.T) {
	for _, merge := range []bool{false, true} {
		t.Run(map[bool]string{false: "nothing merged", true: "merged"}[merge], func(t *testing.T) {
			repo := messyCheckout(t)
			before := checkoutState(t, repo)
			hypCLI(t, repo, "git", "init_base")
			if b, _ := os.ReadFile(filepath.Join(repo, "scratch", "idea.txt")); len(b) != 0 {
				t.Error("the untracked file stayed in the tree: init_base must set the work aside")
			}
			hypCLI(t, repo, "plan", "update_hypothesis", "- [-] divide by 100")
			hypCLI(t, repo, "git", "start_hypothesis", "divide")
			hypCLI(t, repo, "plan", "update_todo", "h1", "- [-] divide")
			pricing := filepath.Join(repo, "inventory", "pricing.py")
			src, _ := os.ReadFile(pricing)
			fixed := strings.Replace(string(src), "price * percent)", "price * percent / 100)", 1)
			if err := os.WriteFile(pricing, []byte(fixed), 0o644); err != nil {
				t.Fatal(err)
			}
			out := hypCLI(t, repo, "git", "commit_todo", "t1", "divide by 100")
			if strings.Contains(out, "notes.txt") || strings.Contains(out, "scratch") {
				t.Errorf("the engineer's files were committed with the to-do:\n%s", out)
			}
			if merge {
				hypCLI(t, repo, "plan", "update_hypothesis", "- [v] divide by 100")
				hypCLI(t, repo, "git", "merge_solution", "divide")
			}
			if b, err := cli(t, repo, "run", "--repo", repo, "--in-place", "--issue", filepath.Join(mustAbs(t, runSample), "issue.md"), "--headless",
				"--script-resolve", filepath.Join(mustAbs(t, runSample), "resolve.json"), "--locations", filepath.Join(mustAbs(t, runSample), "locations.txt")).CombinedOutput(); err == nil ||
				!strings.Contains(string(b), "end it with: swe-adept hyp") {
				t.Errorf("an in-place run started during the session: %v\n%s", err, tail(string(b)))
			} else {
				// The command it names ends the session when pasted.
				text := string(b) // stderr comes last, after the JSON events
				cmd, _, _ := strings.Cut(text[strings.LastIndex(text, "end it with: ")+len("end it with: "):], "\n")
				paste(t, pasteBin(t), []string{cmd})
			}
			after := checkoutState(t, repo)
			if !merge {
				if after != before {
					t.Fatalf("the checkout differs after finish:\n%s", diffLines(before, after))
				}
				return
			}
			got, _ := os.ReadFile(pricing)
			if string(got) != fixed {
				t.Errorf("the merged solution is not on top:\n%s", got)
			}
			if err := os.WriteFile(pricing, src, 0o644); err != nil {
				t.Fatal(err)
			}
			if after := checkoutState(t, repo); after != before {
				t.Fatalf("beyond the solution, the checkout differs:\n%s", diffLines(before, after))
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
