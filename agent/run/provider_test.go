package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/llm/providertest"
	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/agent/models"
	"github.com/swe-adept/swe-adept/agent/runfolder"
	"github.com/swe-adept/swe-adept/index"
)

const providerKey = "sk-test-provider-0123456789"

func fakeProvider(t *testing.T, cfg providertest.Config) *providertest.Server {
	t.Helper()
	cfg.Scripts = map[string]*llm.Script{}
	for agent, file := range map[string]string{"localize": "localize.json", "resolve": "resolve.json"} {
		sc, err := llm.LoadScript(filepath.Join(sampleDir, file))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Scripts[agent] = sc
	}
	cfg.Key = providerKey
	return providertest.New(t, cfg)
}

// providerRun is a whole headless run (localization, then resolution with
// hypotheses and checkpoints) against a fake provider, with the models
// built from settings the way the commands build them.
func providerRun(t *testing.T, srv *providertest.Server, tune func(*models.Settings)) (runfolder.Summary, []event.Event) {
	t.Helper()
	set := models.Settings{Shared: models.Agent{Model: srv.Model(), BaseURL: srv.BaseURL()}, Attempts: 3,
		Getenv: func(k string) string { return map[string]string{"OPENAI_API_KEY": providerKey}[k] }}
	if tune != nil {
		tune(&set)
	}
	rm, err := set.ResolutionModel()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := sampleRepo(t)
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
	if err != nil || sum.Status != "submitted" {
		t.Fatalf("%s: status %s err %v: %s\nrejected: %v", srv.Model(), sum.Status, err, sum.Message, srv.Rejected)
	}
	checkPatch(t, sum)
	noKeyIn(t, r.Dir, providerKey)
	return sum, evs
}

// TestRunAgainstEachProvider: a whole run reaches submitted against every
// provider family's strict fake.
func TestRunAgainstEachProvider(t *testing.T) {
	needPython(t)
	for _, fam := range providertest.Families {
		t.Run(string(fam), func(t *testing.T) {
			t.Parallel()
			srv := fakeProvider(t, providertest.Config{Family: fam, RateLimitFirst: fam == providertest.OpenAIReasoning})
			_, evs := providerRun(t, srv, func(s *models.Settings) {
				if fam == providertest.Ollama {
					s.Shared.NumCtx = 65536
				}
			})
			wantRejected := 0
			if fam == providertest.OpenAIReasoning {
				wantRejected = 1 // the 429, retried
				if !hasEvent(evs, event.Retry, "retrying in") {
					t.Error("the 429 was retried without a retry event")
				}
			}
			if n := srv.ErrorCount(); n != wantRejected {
				t.Errorf("the server rejected %d requests, want %d: %v", n, wantRejected, srv.Rejected)
			}
		})
	}
}

// TestRunOutgrowsTheWindow: the run's history is larger than the server's
// window. The client, first believing the model's usual window, meets the
// overflow error, learns the window from it, trims, and the run finishes.
func TestRunOutgrowsTheWindow(t *testing.T) {
	needPython(t)
	for _, fam := range []providertest.Family{providertest.OpenAIChat, providertest.Anthropic, providertest.LlamaCpp, providertest.Gemini} {
		t.Run(string(fam), func(t *testing.T) {
			t.Parallel()
			srv := fakeProvider(t, providertest.Config{Family: fam, Window: smallWindow})
			sum, evs := providerRun(t, srv, func(s *models.Settings) { s.Shared.ContextWindow = 0 })
			if !hasEvent(evs, event.Message, "context:") {
				t.Error("no event says the conversation was trimmed")
			}
			for i, body := range srv.Requests {
				if n := llmTokens(body); n > smallWindow {
					t.Errorf("request %d carried %d tokens, over the %d window", i, n, smallWindow)
				}
			}
			if sum.Tokens == 0 {
				t.Error("no usage recorded")
			}
		})
	}
}

// smallWindow holds each agent's opening messages but not the whole run.
const smallWindow = 6000

func llmTokens(body map[string]any) int {
	return providertest.PromptTokens(body)
}

// TestOllamaTruncatesWithoutNumCtx: the same run without num_ctx loses the
// task to Ollama's silent cut; the client says so instead of leaving the
// engineer to guess.
func TestOllamaTruncatesWithoutNumCtx(t *testing.T) {
	needPython(t)
	srv := fakeProvider(t, providertest.Config{Family: providertest.Ollama})
	set := models.Settings{Shared: models.Agent{Model: srv.Model(), BaseURL: srv.BaseURL()}, Attempts: 1,
		Getenv: func(k string) string { return map[string]string{"OPENAI_API_KEY": providerKey}[k] }}
	rm, err := set.ResolutionModel()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := sampleRepo(t)
	r, err := Start(context.Background(), Options{Repo: repo, Issue: readIssue(t), ResolveModel: rm, Approve: "auto",
		MaxIterations: 40, Locations: &localize.Locations{Files: []string{"inventory/pricing.py"}}})
	if err != nil {
		t.Fatal(err)
	}
	var evs []event.Event
	for e := range r.Events() {
		evs = append(evs, e)
	}
	sum, _ := r.Wait()
	if sum.Status == "submitted" {
		t.Fatalf("a run whose task was cut away submitted")
	}
	if !hasEvent(evs, event.Message, "num_ctx") {
		t.Errorf("no event points at num_ctx; status %s", sum.Status)
	}
}

func hasEvent(evs []event.Event, typ event.Type, text string) bool {
	for _, e := range evs {
		if e.Type == typ && strings.Contains(e.Text, text) {
			return true
		}
	}
	return false
}

// TestReadmeProviderExamples plays every provider example of the README
// against its family's fake: the settings as written (key variable,
// effort, window, num_ctx, headers), only the base URL pointed at the fake.
func TestReadmeProviderExamples(t *testing.T) {
	needPython(t)
	blocks := readmeExamples(t)
	if len(blocks) != len(providertest.Families) {
		t.Fatalf("README has %d provider examples, want one per family (%d)", len(blocks), len(providertest.Families))
	}
	for fam, text := range blocks {
		t.Run(string(fam), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{}
			for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY"} {
				env[k] = providerKey
			}
			set, err := models.Load(func(k string) string { return env[k] }, path)
			if err != nil {
				t.Fatal(err)
			}
			srv := fakeProvider(t, providertest.Config{Family: fam})
			providerRun(t, srv, func(s *models.Settings) {
				*s = set
				s.Shared.BaseURL = srv.BaseURL()
			})
		})
	}
}

// readmeExamples are the README's TOML blocks that name a family.
func readmeExamples(t *testing.T) map[providertest.Family]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[providertest.Family]string{}
	for _, block := range strings.Split(string(b), "```toml\n")[1:] {
		text, _, _ := strings.Cut(block, "```")
		first, _, _ := strings.Cut(text, "\n")
		name, ok := strings.CutPrefix(first, "# family: ")
		if !ok {
			continue
		}
		fam, _, _ := strings.Cut(name, " ")
		out[providertest.Family(fam)] = text
	}
	return out
}
