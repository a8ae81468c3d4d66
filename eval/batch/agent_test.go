package batch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/sandbox"

	"github.com/swe-adept/swe-adept/eval/export"
	"github.com/swe-adept/swe-adept/eval/swebench"
)

var runSample = filepath.Join("..", "..", "testdata", "run")

// inventoryBatch makes a mirror of the run sample and three instances of
// it (the same bug under three ids), as the JSONL a batch reads.
func inventoryBatch(t *testing.T) (repos string, ins []swebench.Instance) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the scripted resolution runs the sample's tests")
	}
	repos = t.TempDir()
	commit := mirror(t, filepath.Join(runSample, "inventory"), repos, "acme/inventory")
	issue := mustRead(filepath.Join(runSample, "issue.md"))
	for _, id := range []string{"acme__inventory-1", "acme__inventory-2", "acme__inventory-3"} {
		ins = append(ins, swebench.Instance{InstanceID: id, Repo: "acme/inventory", BaseCommit: commit,
			ProblemStatement: issue, GoldFunctions: []string{"inventory/pricing.py:apply_discount"}})
	}
	return repos, ins
}

// agentRunner resolves each instance with the sample's scripts.
//
// Its commands run unconfined: these tests are about batches and queues,
// the sandbox's own tests cover confinement, and each confined command
// starts the test binary again (under -race, many times slower).
// TestAgentBatchKilledAndResumed runs confined.
func agentRunner() AgentRunner {
	return AgentRunner{ScriptLocalize: filepath.Join(runSample, "localize.json"),
		ScriptResolve: filepath.Join(runSample, "resolve.json"), Models: models.Settings{Getenv: func(string) string { return "" }},
		Sandbox: sandbox.Options{Mode: sandbox.Off}}
}

// TestAgentBatchKilledAndResumed runs whole scripted runs: the batch is
// stopped once the first instance is saved, then run again; it skips the
// finished instance, completes the rest, and its predictions apply.
func TestAgentBatchKilledAndResumed(t *testing.T) {
	repos, ins := inventoryBatch(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	confined := agentRunner()
	confined.Sandbox = sandbox.Options{}
	first := &counting{inner: confined, before: func(n int, rctx context.Context) error {
		if n == 2 {
			cancel()
			<-rctx.Done()
			return rctx.Err()
		}
		return nil
	}}
	sum, err := Run(ctx, Config{Instances: ins, ReposDir: repos, OutDir: out, Workers: 1, Runner: first})
	if !errors.Is(err, context.Canceled) || sum.Finished != 1 {
		t.Fatalf("stopped batch: %+v, %v", sum, err)
	}
	if preds := readLines(t, filepath.Join(out, PredsJSONL)); len(preds) != 1 {
		t.Fatalf("after the stop preds.jsonl has %d lines", len(preds))
	}

	again := &counting{inner: confined}
	sum, err = Run(context.Background(), Config{Instances: ins, ReposDir: repos, OutDir: out, Workers: 2, Runner: again})
	if err != nil {
		t.Fatal(err)
	}
	if again.calls["acme__inventory-1"] != 0 || again.calls["acme__inventory-2"] != 1 || again.calls["acme__inventory-3"] != 1 {
		t.Fatalf("resume ran %v", again.calls)
	}
	if sum.Finished != 3 || sum.ByStatus["submitted"] != 3 || sum.Patches != 3 || sum.Resumed != 1 {
		t.Fatalf("summary %+v", sum)
	}
	if sum.Cost != "$0.0000" || !sum.Priced || sum.APICalls == 0 || sum.Tokens.Total == 0 {
		t.Fatalf("accounting %+v", sum)
	}
	checkPreds(t, out, repos, ins)
	checkRunFolder(t, filepath.Join(out, RunsDir, "acme__inventory-2"))
}

func checkPreds(t *testing.T, out, repos string, ins []swebench.Instance) {
	t.Helper()
	lines := readLines(t, filepath.Join(out, PredsJSONL))
	var dict map[string]swebench.Prediction
	b, err := os.ReadFile(filepath.Join(out, PredsJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dict); err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(ins) || len(dict) != len(ins) {
		t.Fatalf("%d prediction lines, %d in preds.json", len(lines), len(dict))
	}
	check := filepath.Join(t.TempDir(), "check")
	if _, err := swebench.Checkout(context.Background(), swebench.RepoDir(repos, ins[0].Repo), ins[0].BaseCommit, check); err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		var p swebench.Prediction
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		if p.InstanceID != ins[i].InstanceID || p.ModelNameOrPath != "scripted-resolver" || dict[p.InstanceID] != p {
			t.Fatalf("prediction %d: %+v", i, p)
		}
		if !strings.Contains(p.ModelPatch, "inventory/pricing.py") || strings.Contains(p.ModelPatch, "reproduce.py") {
			t.Fatalf("patch of %s:\n%s", p.InstanceID, p.ModelPatch)
		}
		f := filepath.Join(t.TempDir(), "p.diff")
		if err := os.WriteFile(f, []byte(p.ModelPatch), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, check, "apply", "--check", f)
	}
}

// checkRunFolder exports a batch's run folder in every format.
func checkRunFolder(t *testing.T, dir string) {
	t.Helper()
	r, err := export.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.InstanceID() != "acme__inventory-2" || r.EventsErr != nil {
		t.Fatalf("instance %q, events %v", r.InstanceID(), r.EventsErr)
	}
	tr := export.SWEAgent(r, "")
	if tr.Info.ExitStatus != "submitted" || len(tr.Trajectory) < 10 || tr.Info.Submission == "" || len(tr.History) == 0 {
		t.Fatalf("trajectory: %d steps, info %+v", len(tr.Trajectory), tr.Info)
	}
	loc, err := export.LocAgent(r, "")
	if err != nil || len(loc.FoundEntities) == 0 || loc.FoundEntities[0] != "inventory/pricing.py:apply_discount" {
		t.Fatalf("locagent %+v, %v", loc, err)
	}
}
