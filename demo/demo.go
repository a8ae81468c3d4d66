// Package demo is the bundled demonstration: a small Python shop with a
// real rounding bug three calls below the function its issue names, its
// unittest suite, the issue text, and the scripted transcripts that drive
// the two agents through the real tools (the model's choices are scripted;
// the index, searches, edits, commits, diffs and test runs are real).
package demo

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/vcs"
)

//go:embed all:sample
var sample embed.FS

//go:embed scripts/localize.json
var localizeScript []byte

//go:embed scripts/resolve.json
var resolveScript []byte

//go:embed ISSUE.md
var issue string

// Issue is the issue the demo resolves, as the engineer would file it.
func Issue() string { return issue }

// Scripts returns the transcripts of the localization and the resolution
// agent.
func Scripts() (localize, resolve *llm.Script, err error) {
	if localize, err = llm.ParseScript(localizeScript); err != nil {
		return nil, nil, fmt.Errorf("demo localization script: %w", err)
	}
	if resolve, err = llm.ParseScript(resolveScript); err != nil {
		return nil, nil, fmt.Errorf("demo resolution script: %w", err)
	}
	return localize, resolve, nil
}

// Files lists the sample repository's files, slash-separated and sorted.
func Files() []string {
	var out []string
	_ = fs.WalkDir(sample, "sample", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, strings.TrimPrefix(p, "sample/"))
		}
		return nil
	})
	return out
}

// Setup writes the sample repository into dir (which must be empty or
// missing) and commits it on branch main, so the run starts from a clean
// git repository as an engineer's would.
func Setup(ctx context.Context, dir string) error {
	if err := writeSample(dir); err != nil {
		return err
	}
	steps := [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", "shop: carts, volume pricing and order discounts"},
	}
	for _, args := range steps {
		if err := git(ctx, dir, args...); err != nil {
			return fmt.Errorf("demo setup: %w", err)
		}
	}
	return nil
}

func writeSample(dir string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("demo setup: %s is not empty", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("demo setup: %w", err)
	}
	return fs.WalkDir(sample, "sample", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, "sample"), "/")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := sample.ReadFile(p)
		if err != nil {
			return fmt.Errorf("demo setup: read %s: %w", path.Base(p), err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return fmt.Errorf("demo setup: %w", err)
		}
		return nil
	})
}

// git runs git with a fixed identity, so the demo works on a machine with
// no global git configuration.
func git(ctx context.Context, dir string, args ...string) error {
	cmd := vcs.Command(ctx, filepath.Join(dir, ".git"), dir, args...)
	cmd.Env = append(cmd.Env,
		"GIT_AUTHOR_NAME=swe-adept demo", "GIT_AUTHOR_EMAIL=demo@swe-adept.invalid",
		"GIT_COMMITTER_NAME=swe-adept demo", "GIT_COMMITTER_EMAIL=demo@swe-adept.invalid",
		"GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Python finds python3, which the sample's tests need. Without it the demo
// still runs; its test steps report that python3 is missing.
func Python() (string, bool) {
	p, err := exec.LookPath("python3")
	return p, err == nil
}
