package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/eval/swebench"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// Summary is OUT/summary.json.
type Summary struct {
	Instances int            `json:"instances"`
	Finished  int            `json:"finished"`
	Resumed   int            `json:"resumed"` // finished by an earlier invocation, skipped this time
	Pending   []string       `json:"pending,omitempty"`
	ByStatus  map[string]int `json:"by_status"`
	Patches   int            `json:"patches"` // non-empty predictions
	Tokens    Tokens         `json:"tokens"`
	APICalls  int            `json:"api_calls"`
	Cost      string         `json:"cost"`     // "$0.4100", or "unpriced" when any instance was
	CostUSD   float64        `json:"cost_usd"` // the priced part
	Priced    bool           `json:"priced"`
	Seconds   float64        `json:"seconds"`      // summed over instances
	Wall      float64        `json:"wall_seconds"` // this invocation, start to end
	Malformed []BadLine      `json:"malformed_lines,omitempty"`
	Skipped   []string       `json:"duplicate_ids,omitempty"`
	// Acc is Acc@k over the finished instances with gold (localize-only).
	Acc *swebench.Summary `json:"acc,omitempty"`
}

// Tokens counts a batch's tokens.
type Tokens struct {
	Sent     int `json:"sent"`
	Received int `json:"received"`
	Total    int `json:"total"`
}

// BadLine is a malformed line of the instances file.
type BadLine struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// book holds every instance's record and rewrites the batch files after
// each one finishes, so a stopped batch leaves them current.
type book struct {
	cfg     Config
	mu      sync.Mutex
	order   []string // instance ids, first occurrence, in file order
	byID    map[string]swebench.Instance
	dups    []string
	records map[string]Record
	resumed int
	wall    float64
}

func (b *book) setWall(sec float64) {
	b.mu.Lock()
	b.wall = sec
	b.mu.Unlock()
}

func newBook(cfg Config) *book {
	b := &book{cfg: cfg, byID: map[string]swebench.Instance{}, records: map[string]Record{}}
	for _, in := range cfg.Instances {
		if _, dup := b.byID[in.InstanceID]; dup {
			b.dups = append(b.dups, in.InstanceID)
			continue
		}
		b.byID[in.InstanceID] = in
		b.order = append(b.order, in.InstanceID)
	}
	return b
}

// resume loads the records of instances finished earlier and returns the
// instances still to run.
func (b *book) resume() []swebench.Instance {
	var todo []swebench.Instance
	for _, id := range b.order {
		dir := filepath.Join(b.cfg.OutDir, RunsDir, DirName(id))
		rec, err := loadRecord(dir)
		switch {
		case err == nil && rec.InstanceID == id:
			b.records[id] = rec
			b.resumed++
			continue
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			slog.Warn("unreadable record; running the instance again", "instance", id, "err", err)
		}
		todo = append(todo, b.byID[id])
	}
	return todo
}

func (b *book) finish(rec Record) error {
	b.mu.Lock()
	b.records[rec.InstanceID] = rec
	b.mu.Unlock()
	return b.save()
}

// save rewrites the predictions (or localization outputs) and the summary
// from the records, each file atomically.
func (b *book) save() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	if b.cfg.LocalizeOnly {
		errs = append(errs, b.writeLocOutputs())
	} else {
		errs = append(errs, b.writePreds())
	}
	errs = append(errs, atomicfile.WriteJSON(filepath.Join(b.cfg.OutDir, SummaryFile), b.summaryLocked()))
	return errors.Join(errs...)
}

func (b *book) finished() []Record {
	var recs []Record
	for _, id := range b.order {
		if r, ok := b.records[id]; ok {
			recs = append(recs, r)
		}
	}
	return recs
}

func (b *book) writePreds() error {
	var lines bytes.Buffer
	dict := map[string]swebench.Prediction{}
	for _, r := range b.finished() {
		patch, err := os.ReadFile(filepath.Join(b.cfg.OutDir, RunsDir, DirName(r.InstanceID), runfolder.PatchFile))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("prediction of %s: %w", r.InstanceID, err)
		}
		p := swebench.Prediction{InstanceID: r.InstanceID, ModelNameOrPath: nonEmpty(r.Model, "swe-adept"), ModelPatch: string(patch)}
		line, err := marshal(p)
		if err != nil {
			return err
		}
		lines.Write(line)
		lines.WriteByte('\n')
		dict[r.InstanceID] = p
	}
	if err := atomicfile.Write(filepath.Join(b.cfg.OutDir, PredsJSONL), lines.Bytes()); err != nil {
		return err
	}
	return atomicfile.WriteJSON(filepath.Join(b.cfg.OutDir, PredsJSON), dict)
}

func (b *book) writeLocOutputs() error {
	var lines bytes.Buffer
	for _, r := range b.finished() {
		line, err := marshal(swebench.NewLocAgentOutput(r.InstanceID, r.Files, r.Functions))
		if err != nil {
			return err
		}
		lines.Write(line)
		lines.WriteByte('\n')
	}
	return atomicfile.Write(filepath.Join(b.cfg.OutDir, LocOutputs), lines.Bytes())
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func (b *book) summary() *Summary {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.summaryLocked()
}

func (b *book) summaryLocked() *Summary {
	s := &Summary{Instances: len(b.order), Resumed: b.resumed, ByStatus: map[string]int{}, Priced: true, Skipped: b.dups, Wall: b.wall}
	var scores, failed []swebench.Score
	for _, id := range b.order {
		r, ok := b.records[id]
		if !ok {
			s.Pending = append(s.Pending, id)
			continue
		}
		s.add(r)
		switch {
		case r.Score != nil:
			scores = append(scores, *r.Score)
		case b.cfg.LocalizeOnly && hasGold(b.byID[id]):
			failed = append(failed, swebench.Score{InstanceID: id, HasFunc: len(b.byID[id].GoldFunctions) > 0})
		}
	}
	s.Cost = llm.FormatCost(s.CostUSD, s.Priced)
	for _, l := range b.cfg.BadLines {
		s.Malformed = append(s.Malformed, BadLine{Line: l.Line, Error: l.Err.Error()})
	}
	if len(scores)+len(failed) > 0 {
		acc := swebench.Summarize(scores, failed)
		s.Acc = &acc
	}
	return s
}

func (s *Summary) add(r Record) {
	s.Finished++
	s.ByStatus[r.Status]++
	if r.HasPatch {
		s.Patches++
	}
	s.Tokens.Sent += r.PromptTokens
	s.Tokens.Received += r.CompletionTokens
	s.Tokens.Total += r.PromptTokens + r.CompletionTokens
	s.APICalls += r.Calls
	s.CostUSD += r.Cost
	if r.Calls > 0 && !r.Priced {
		s.Priced = false
	}
	s.Seconds += r.Seconds
}

func hasGold(in swebench.Instance) bool {
	return len(in.GoldFiles) > 0 || len(in.GoldFunctions) > 0 || in.Patch != ""
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sortedStatuses lists a summary's statuses, most frequent first, for
// the progress line.
func sortedStatuses(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
