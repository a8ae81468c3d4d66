package evalloc

import (
	"context"
	"github.com/swe-adept/swe-adept/agent/models"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/eval/swebench"
)

// mirror makes a bare mirror of a small Python repository under repos/acme/shop
// and returns its first commit.
func mirror(t *testing.T, repos string) string {
	t.Helper()
	src := t.TempDir()
	files := map[string]string{
		"shop/__init__.py": "",
		"shop/cart.py": "from .pricing import apply_discount\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n" +
			"    def total(self):\n        return apply_discount(sum(self.items), 0.1)\n",
		"shop/pricing.py": "def apply_discount(amount, rate):\n    return amount * rate\n\n\ndef round_price(x):\n    return round(x, 2)\n",
		"shop/report.py":  "def render(cart):\n    return 'total: %s' % cart.total()\n",
	}
	for name, body := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(dir string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(src, "init", "-q")
	git(src, "add", "-A")
	git(src, "commit", "-qm", "shop")
	git(src, "clone", "-q", "--bare", src, filepath.Join(repos, "acme", "shop"))
	return git(src, "rev-parse", "HEAD")
}

func TestRunScoresAndFailsOnlyTheBrokenInstance(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	repos := t.TempDir()
	base := mirror(t, repos)
	issue := "Cart.total() returns 1.0 for items worth 10: `apply_discount` multiplies by the rate instead of subtracting the discount."
	instances := []swebench.Instance{
		{InstanceID: "acme__shop-1", Repo: "acme/shop", BaseCommit: base, ProblemStatement: issue,
			GoldFiles: []string{"shop/pricing.py"}, GoldFunctions: []string{"shop/pricing.py:apply_discount"}},
		{InstanceID: "acme__gone-2", Repo: "acme/gone", BaseCommit: base, ProblemStatement: issue,
			GoldFiles: []string{"x.py"}, GoldFunctions: []string{"x.py:f"}},
	}
	var preds []swebench.LocAgentOutput
	res, err := Run(context.Background(), Config{Instances: instances, ReposDir: repos, Models: models.Settings{Shared: models.Agent{Model: "heuristic"}}, Baseline: true,
		Predict: func(o swebench.LocAgentOutput) error { preds = append(preds, o); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "heuristic" || res.Localizer.Instances != 2 || res.Localizer.Failed != 1 {
		t.Fatalf("summary = %+v", res)
	}
	one := res.Instances[0]
	if !one.Score.File3 || !one.Score.Func5 {
		t.Errorf("the defining file and function should rank near the top: %+v", one)
	}
	if res.Localizer.FileAcc3 != 0.5 || res.BM25 == nil {
		t.Errorf("the failed instance must count as a miss: %+v, bm25 %+v", res.Localizer, res.BM25)
	}
	if !strings.Contains(res.Instances[1].Error, "not found") {
		t.Errorf("missing repository error = %q", res.Instances[1].Error)
	}
	if len(preds) != 1 || preds[0].InstanceID != "acme__shop-1" || len(preds[0].FoundFiles) == 0 {
		t.Errorf("predictions = %+v", preds)
	}
}
