package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/eval/evalloc"
	"github.com/swe-adept/swe-adept/eval/swebench"
)

// TestPredictionsAppearWhole: eval-loc --out shows its predictions only
// once they are all written, and refuses a special file before the run.
func TestPredictionsAppearWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "preds.jsonl")
	var cfg evalloc.Config
	save, err := predictionWriter(&cfg, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a__b-1", "a__b-2"} {
		if err := cfg.Predict(swebench.NewLocAgentOutput(id, []string{"x.py"}, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("predictions visible before the run ends: %v", err)
	}
	if err := save(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || strings.Count(string(b), "\n") != 2 || !strings.Contains(string(b), "a__b-2") {
		t.Fatalf("saved %q, %v; want two predictions", b, err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := predictionWriter(&cfg, link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("--out at a symlink: %v, want a refusal", err)
	}
}
