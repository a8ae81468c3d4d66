// Package swebench reads SWE-bench-style instances, exports a repository at
// an instance's base commit, derives and scores gold locations (Acc@k as
// LocAgent defines it), and writes the formats the field's tools read.
package swebench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Instance is one SWE-bench-style task. The gold fields are answers: Task
// strips them before anything reaches a localizer.
type Instance struct {
	InstanceID       string `json:"instance_id"`
	Repo             string `json:"repo"`
	BaseCommit       string `json:"base_commit"`
	ProblemStatement string `json:"problem_statement"`
	HintsText        string `json:"hints_text,omitempty"`
	Version          string `json:"version,omitempty"`

	Patch         string   `json:"patch,omitempty"`
	GoldFiles     []string `json:"gold_files,omitempty"`
	GoldFunctions []string `json:"gold_functions,omitempty"`
}

// Task is what a localizer or resolver may see of an instance.
type Task struct {
	InstanceID       string
	Repo             string
	BaseCommit       string
	ProblemStatement string
}

// Task strips the answers.
func (in Instance) Task() Task {
	return Task{InstanceID: in.InstanceID, Repo: in.Repo, BaseCommit: in.BaseCommit, ProblemStatement: in.ProblemStatement}
}

// LineError is a malformed line of an instances file. Reading goes on past it.
type LineError struct {
	Line int
	Err  error
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// ReadInstances reads a JSONL instances file. Malformed lines are returned
// as LineErrors (with their line numbers) and skipped; only an unreadable
// file is an error.
func ReadInstances(r io.Reader) ([]Instance, []LineError, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []Instance
	var bad []LineError
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		in, err := parseInstance(line)
		if err == nil {
			if prev, dup := seen[in.InstanceID]; dup {
				err = fmt.Errorf("instance %s already read at line %d", in.InstanceID, prev)
			}
		}
		if err != nil {
			bad = append(bad, LineError{Line: n, Err: err})
			continue
		}
		seen[in.InstanceID] = n
		out = append(out, in)
	}
	if err := sc.Err(); err != nil {
		return out, bad, fmt.Errorf("read instances: %w", err)
	}
	return out, bad, nil
}

// ReadInstancesFile is ReadInstances on a path.
func ReadInstancesFile(path string) ([]Instance, []LineError, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open instances: %w", err)
	}
	defer f.Close()
	return ReadInstances(f)
}

func parseInstance(line string) (Instance, error) {
	var in Instance
	if err := json.Unmarshal([]byte(line), &in); err != nil {
		return in, fmt.Errorf("not a JSON object: %w", err)
	}
	var missing []string
	for name, v := range map[string]string{
		"instance_id": in.InstanceID, "repo": in.Repo, "base_commit": in.BaseCommit, "problem_statement": in.ProblemStatement,
	} {
		if strings.TrimSpace(v) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return in, fmt.Errorf("missing %s", strings.Join(sortedCopy(missing), ", "))
	}
	if strings.Count(in.Repo, "/") != 1 || strings.Contains(in.Repo, "..") {
		return in, fmt.Errorf("repo %q is not OWNER/NAME", in.Repo)
	}
	return in, nil
}
