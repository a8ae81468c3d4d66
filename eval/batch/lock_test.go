package batch

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/eval/swebench"
)

func TestOutLock(t *testing.T) {
	dir := t.TempDir()
	first, err := lockOut(dir, "coordinator", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := first.setLease("lease-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := lockOut(dir, "batch", time.Now()); err == nil || !strings.Contains(err.Error(), "another coordinator (pid") {
		t.Fatalf("a second holder: %v", err)
	}
	first.release()
	next, err := lockOut(dir, "batch", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer next.release()
	if next.prev.Lease != "lease-1" || next.prev.PID != os.Getpid() {
		t.Fatalf("the last holder, as the next one reads it: %+v", next.prev)
	}
}

// TestLocalBatchLocksOut: a local batch refuses an output folder another
// batch is writing.
func TestLocalBatchLocksOut(t *testing.T) {
	out := t.TempDir()
	held, err := lockOut(out, "batch", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer held.release()
	_, err = Run(t.Context(), Config{Instances: []swebench.Instance{{InstanceID: "a"}}, ReposDir: t.TempDir(), OutDir: out, Runner: runnerFunc(func(context.Context, Job) (Result, error) { return Result{}, nil })})
	if err == nil || !strings.Contains(err.Error(), "another batch") {
		t.Fatalf("a second batch on one folder: %v", err)
	}
}
