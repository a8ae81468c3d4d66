package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/llm/providertest"
	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/agent/replay"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
)

// catalog is a data file of about 8,000 characters: one cat of it is an
// observation of that size. Its last row closes every read.
func catalog() string {
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, "row %03d: sku-%04d lamp shade  %6.2f %3d\n", i, i*37%9973, float64(i%97)+0.99, i%41)
	}
	return b.String()
}

// catalogRepo is the sample repository with the catalogue committed.
func catalogRepo(t *testing.T) string {
	t.Helper()
	repo, _ := sampleRepo(t)
	if err := os.WriteFile(filepath.Join(repo, "inventory", "catalog.csv"), []byte(catalog()), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "inventory/catalog.csv")
	git(t, repo, "commit", "-q", "-m", "catalogue")
	return repo
}

// windowServer is a family's fake with a window of its own, answering the
// localizer from the sample's script and the resolver from script.
func windowServer(t *testing.T, cfg providertest.Config, script string) *providertest.Server {
	t.Helper()
	cfg.Scripts = map[string]*llm.Script{}
	for agent, file := range map[string]string{"localize": "localize.json", "resolve": script} {
		sc, err := llm.LoadScript(filepath.Join(sampleDir, file))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Scripts[agent] = sc
	}
	cfg.Key = providerKey
	return providertest.New(t, cfg)
}

// windowSettings are the settings a user of the family writes, believing
// the model's usual window; Ollama's window is its num_ctx.
func windowSettings(srv *providertest.Server, fam providertest.Family, window int, whole bool) models.Settings {
	set := models.Settings{Shared: models.Agent{Model: srv.Model(), BaseURL: srv.BaseURL()}, Attempts: 3,
		Getenv: func(k string) string { return map[string]string{"OPENAI_API_KEY": providerKey}[k] }}
	if fam == providertest.Ollama {
		set.Shared.NumCtx = window
	}
	if whole {
		off := false
		set.Shared.Stream = &off
	}
	return set
}

// windowRun is a whole headless run on repo against the fake.
func windowRun(t *testing.T, repo string, set models.Settings) (runfolder.Summary, []event.Event, error) {
	t.Helper()
	rm, err := set.ResolutionModel()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), ResolveModel: rm, Approve: "auto", MaxIterations: 40,
		MaxCost: 5, Localizer: func(ix *index.Index) (llm.Model, string, error) { return set.LocalizationModel(ix, nil) }})
	if err != nil {
		t.Fatal(err)
	}
	var evs []event.Event
	for e := range r.Events() {
		evs = append(evs, e)
	}
	sum, err := r.Wait()
	return sum, evs, err
}

// retriesShrink fails the test when a request refused as too long is
// followed by one that is not smaller.
func retriesShrink(t *testing.T, srv *providertest.Server) (overflows int) {
	t.Helper()
	got := srv.Received
	for i, x := range got {
		if x.Status == 200 {
			continue
		}
		if !strings.Contains(srv.Rejected[overflows], "context") && !strings.Contains(srv.Rejected[overflows], "too long") &&
			!strings.Contains(srv.Rejected[overflows], "maximum number of tokens") {
			t.Errorf("request %d was refused for something else than its length: %s", i, srv.Rejected[overflows])
		}
		overflows++
		if i+1 < len(got) && got[i+1].Bytes >= x.Bytes {
			t.Errorf("request %d (%d bytes) was refused as too long, and the retry was %d bytes", i, x.Bytes, got[i+1].Bytes)
		}
	}
	return overflows
}

func modes() map[string]bool { return map[string]bool{"streamed": false, "whole": true} }

// TestLongRunsOnSmallWindows: a model with a 12k-token window, which its
// user believes larger, reads the same 8,000-character file six times,
// then fixes the bug. Against every family, streamed (with the first
// stream broken off) and whole, the run reaches submitted, and no retry
// after an overflow repeats a request as large.
func TestLongRunsOnSmallWindows(t *testing.T) {
	needPython(t)
	const window = 12_000
	for _, fam := range providertest.Families {
		for mode, whole := range modes() {
			t.Run(string(fam)+"/"+mode, func(t *testing.T) {
				t.Parallel()
				srv := windowServer(t, providertest.Config{Family: fam, Window: window, BreakStream: !whole}, "bigreads.json")
				sum, _, err := windowRun(t, catalogRepo(t), windowSettings(srv, fam, window, whole))
				if err != nil || sum.Status != "submitted" {
					t.Fatalf("status %s (%v): %s", sum.Status, err, sum.Message)
				}
				if patch := string(must(os.ReadFile(sum.Patch))); !strings.Contains(patch, "percent / 100") {
					t.Errorf("the patch lacks the fix:\n%s", patch)
				}
				overflows := retriesShrink(t, srv)
				if fam != providertest.Ollama && overflows == 0 {
					t.Error("no request overflowed: the run never met the small window")
				}
				if fam != providertest.Ollama && largestObservation(srv) < 7_500 {
					t.Errorf("the largest observation sent was %d characters, want the whole 8,000-character file", largestObservation(srv))
				}
				for i, x := range srv.Received {
					if n := providertest.PromptTokens(x.Body); x.Status == 200 && n > window {
						t.Errorf("request %d of %d tokens was answered beyond the %d window", i, n, window)
					}
				}
			})
		}
	}
}

// largestObservation is the longest tool message the fake received.
func largestObservation(srv *providertest.Server) int {
	n := 0
	for _, x := range srv.Received {
		msgs, _ := x.Body["messages"].([]any)
		for _, raw := range msgs {
			m, _ := raw.(map[string]any)
			if c, ok := m["content"].(string); ok && m["role"] == "tool" {
				n = max(n, len(c))
			}
		}
	}
	return n
}

// TestWindowSmallerThanTheOpening: a window that cannot hold even the
// task ends the run exit_context, not exit_error, with advice that names
// the window and what to change, against every family, streamed and whole.
func TestWindowSmallerThanTheOpening(t *testing.T) {
	const window = 1_000
	for _, fam := range providertest.Families {
		for mode, whole := range modes() {
			t.Run(string(fam)+"/"+mode, func(t *testing.T) {
				t.Parallel()
				srv := windowServer(t, providertest.Config{Family: fam, Window: window}, "bigreads.json")
				sum, evs, err := windowRun(t, catalogRepo(t), windowSettings(srv, fam, window, whole))
				if err != nil || sum.Status != "exit_context" {
					t.Fatalf("status %s (%v): %s", sum.Status, err, sum.Message)
				}
				for _, advice := range []string{fmt.Sprint(window), "context_window", "num_ctx", "larger window"} {
					if !strings.Contains(sum.Message, advice) {
						t.Errorf("the summary's message lacks %q: %s", advice, sum.Message)
					}
				}
				if !hasEvent(evs, event.Message, "context_window") {
					t.Error("no event gives the engineer the advice")
				}
				retriesShrink(t, srv)
				if len(srv.Requests) > 0 {
					t.Errorf("%d requests were answered by a window that cannot hold the task", len(srv.Requests))
				}
			})
		}
	}
}

// TestReplayOfAStreamedRun: a run replays from its assembled turns, never
// from the deltas, so replaying a streamed run gives the same events as
// replaying the same run unstreamed, but for what differs between any two
// runs (ids, paths, times, commit hashes, test timings).
func TestReplayOfAStreamedRun(t *testing.T) {
	needPython(t)
	var replays [2]string
	for i, whole := range []bool{false, true} {
		srv := fakeProvider(t, providertest.Config{Family: providertest.OpenAIChat})
		sum, evs := providerRun(t, srv, func(s *models.Settings) {
			off := false
			if whole {
				s.Shared.Stream = &off
			}
		})
		if streamed := countType(evs, event.Delta) > 0; streamed == whole || (srv.Chunks() > 0) == whole {
			t.Fatalf("whole=%v: %d deltas heard, %d chunks streamed", whole, countType(evs, event.Delta), srv.Chunks())
		}
		saved, err := replay.Load(sum.RunDir)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := replay.WriteJSONL(context.Background(), &out, saved, replay.Options{}); err != nil {
			t.Fatal(err)
		}
		replays[i] = normalizeRun(out.String(), sum)
	}
	if replays[0] != replays[1] {
		a, b := strings.Split(replays[0], "\n"), strings.Split(replays[1], "\n")
		for i := 0; i < min(len(a), len(b)); i++ {
			if a[i] != b[i] {
				t.Fatalf("the replays differ at event %d:\nstreamed %s\nwhole    %s", i+1, a[i], b[i])
			}
		}
		t.Fatalf("the replays differ in length: %d and %d events", len(a), len(b))
	}
}

// What differs between any two runs of the same script.
var (
	runTimes   = regexp.MustCompile(`"(time|until|started|ended)":"[^"]*"|"seconds":[0-9.e+-]+|in [0-9.]+s|\[\d{2}:\d{2}:\d{2}\]`)
	runHashes  = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	runSeq     = regexp.MustCompile(`"seq":\d+,`)
	runFolders = regexp.MustCompile(`/[^"\s]*?/(swe-adept|run|\d{3,})[^"\s]*`)
)

func normalizeRun(s string, sum runfolder.Summary) string {
	var kept []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.Contains(line, `"type":"index_progress"`) { // the indexer's workers race
			kept = append(kept, runSeq.ReplaceAllString(line, ""))
		}
	}
	s = strings.ReplaceAll(strings.Join(kept, "\n"), sum.ID, "RUN")
	s = runTimes.ReplaceAllString(s, "TIME")
	s = runHashes.ReplaceAllString(s, "HASH")
	return runFolders.ReplaceAllString(s, "PATH")
}
