package localize

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/index"
)

// HeuristicModel is the --model value that picks the offline localizer.
const HeuristicModel = "heuristic"

// NoKeyNotice is what the commands print when they fall back to the
// heuristic because no key is set.
const NoKeyNotice = "no OPENAI_API_KEY: using the offline heuristic localizer"

// ModelChoice is what picks the localization model.
type ModelChoice struct {
	Script   string // a transcript file: the scripted model plays it
	Model    string // "heuristic", a model name, or "" for SWE_ADEPT_MODEL
	Index    *index.Index
	Searcher *index.Searcher // nil: built from Index when the heuristic needs it
	// Getenv reads the environment; nil means os.Getenv (tests pass a map).
	Getenv func(string) string
}

// ChooseModel picks the localization model: a script when one is given;
// the heuristic when asked for or when neither OPENAI_API_KEY nor
// OPENAI_BASE_URL is set; otherwise the OpenAI-compatible client. The
// notice, when not empty, is a line for the engineer saying why.
func ChooseModel(c ModelChoice) (m llm.Model, notice string, err error) {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if c.Script != "" {
		s, err := loadLocalizeScript(c.Script)
		if err != nil {
			return nil, "", err
		}
		return llm.NewScripted(s), "", nil
	}
	name := strings.TrimSpace(c.Model)
	if name == "" {
		name = strings.TrimSpace(getenv("SWE_ADEPT_MODEL"))
	}
	noServer := strings.TrimSpace(getenv("OPENAI_API_KEY")) == "" && strings.TrimSpace(getenv("OPENAI_BASE_URL")) == ""
	if strings.EqualFold(name, HeuristicModel) || noServer {
		if c.Index == nil {
			return nil, "", errors.New("the heuristic localizer needs an index")
		}
		s := c.Searcher
		if s == nil {
			s = index.NewSearcher(c.Index)
		}
		if !strings.EqualFold(name, HeuristicModel) {
			notice = NoKeyNotice
		}
		return llm.NewHeuristic(c.Index, s), notice, nil
	}
	o, err := llm.NewOpenAI(llm.ConfigFrom(getenv, name))
	if err != nil {
		return nil, "", fmt.Errorf("localization model: %w", err)
	}
	return o, "", nil
}

// loadLocalizeScript reads a single script, or the localization agent's
// part of a per-agent script file.
func loadLocalizeScript(path string) (*llm.Script, error) {
	var firstErr error
	for _, name := range []string{"localize", "localization"} {
		s, err := llm.LoadAgentScript(path, name)
		if err == nil {
			return s, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}
