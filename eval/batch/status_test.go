package batch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swe-adept/swe-adept/agent/event"
)

// runnerFunc adapts a function to Runner.
type runnerFunc func(ctx context.Context, job Job) (Result, error)

func (f runnerFunc) Run(ctx context.Context, job Job) (Result, error) { return f(ctx, job) }

func TestInstanceStatuses(t *testing.T) {
	repos, commit := mirrors(t)
	ins, _ := instancesFile(t, commit)
	tests := []struct {
		name    string
		runner  runnerFunc
		timeout time.Duration
		status  string
		message string
	}{
		{"time-out", func(ctx context.Context, job Job) (Result, error) {
			<-ctx.Done() // a run that would go on forever
			return Result{Status: "cancelled"}, ctx.Err()
		}, time.Millisecond, StatusTimeout, "time-out after 1ms"},
		{"runner error", func(ctx context.Context, job Job) (Result, error) {
			return Result{}, errors.New("model server unreachable")
		}, 0, StatusError, "model server unreachable"},
		{"runner status kept", func(ctx context.Context, job Job) (Result, error) {
			return Result{Status: "exit_cost", Patch: "", Usage: event.UsageInfo{Calls: 3, PromptTokens: 10, Priced: false}}, nil
		}, 0, "exit_cost", ""},
		{"checkout is the base commit", func(ctx context.Context, job Job) (Result, error) {
			if _, err := os.Stat(filepath.Join(job.Workdir, "shop", "money.py")); err != nil {
				return Result{}, err
			}
			if strings.Contains(job.Task.ProblemStatement, "gold") || job.RunDir == "" {
				return Result{}, errors.New("bad job")
			}
			return Result{Status: "submitted", Patch: "diff --git a/x b/x\n"}, nil
		}, 0, "submitted", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			sum, err := Run(context.Background(), Config{Instances: ins[:1], ReposDir: repos, OutDir: out, Runner: tc.runner, Timeout: tc.timeout})
			if err != nil {
				t.Fatal(err)
			}
			rec, err := loadRecord(filepath.Join(out, RunsDir, ins[0].InstanceID))
			if err != nil {
				t.Fatal(err)
			}
			if rec.Status != tc.status || !strings.Contains(rec.Message, tc.message) || sum.ByStatus[tc.status] != 1 {
				t.Fatalf("record %+v", rec)
			}
			if tc.status == "exit_cost" && (sum.Cost != "unpriced" || sum.Priced) {
				t.Fatalf("an unpriced instance must leave the batch unpriced: %+v", sum)
			}
		})
	}
}

func TestProgressBar(t *testing.T) {
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var buf bytes.Buffer
	p := newProgress(&buf, true, 4, 1, clock)
	p.started("a")
	now = now.Add(30 * time.Second)
	p.finished(Record{InstanceID: "a", Status: "submitted"})
	p.close()
	out := buf.String()
	if !strings.HasPrefix(out, "resuming: 1 of 4 instances already finished\n") {
		t.Fatalf("no resume line: %q", out)
	}
	if !strings.Contains(out, "2/4 · 0 running · submitted 1 · ETA 1m0s") {
		t.Fatalf("bar:\n%q", out)
	}
	if !strings.Contains(out, "\r\033[K") || !strings.HasSuffix(out, "\n") {
		t.Fatalf("a terminal bar is redrawn in place and ends its line: %q", out)
	}
}

func TestScriptFor(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a__b-1.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "a__b-1.json")
	tests := []struct {
		path, id, want, err string
	}{
		{"", "x", "", ""},
		{file, "anything", file, ""},
		{dir, "a/b-1", file, ""},
		{dir, "c-2", "", "no script for c-2"},
		{filepath.Join(dir, "missing.json"), "x", "", "script"},
	}
	for _, tc := range tests {
		got, err := ScriptFor(tc.path, tc.id)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ScriptFor(%q, %q) error %v, want %q", tc.path, tc.id, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ScriptFor(%q, %q) = %q, %v; want %q", tc.path, tc.id, got, err, tc.want)
		}
	}
}

func TestDuplicateIDsRunOnce(t *testing.T) {
	repos, commit := mirrors(t)
	ins, _ := instancesFile(t, commit)
	ins = append(ins[:1], ins[0], ins[0])
	run := &counting{inner: runnerFunc(func(ctx context.Context, job Job) (Result, error) {
		return Result{Status: "submitted"}, nil
	})}
	sum, err := Run(context.Background(), Config{Instances: ins, ReposDir: repos, OutDir: t.TempDir(), Workers: 2, Runner: run})
	if err != nil {
		t.Fatal(err)
	}
	if run.n != 1 || sum.Instances != 1 || len(sum.Skipped) != 2 || sum.Skipped[0] != "shop__shop-1" {
		t.Fatalf("ran %d times, summary %+v", run.n, sum)
	}
}
