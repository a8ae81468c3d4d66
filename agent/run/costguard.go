package run

import (
	"fmt"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// blendedRate turns a dollar limit into tokens for a model without a
// price: dollars per million tokens, prompt and reply together, at the
// level of today's frontier models, so the stand-in budget errs low.
const blendedRate = 3.0

// costGuard keeps a cost limit from silently doing nothing: when a model
// that will be called has no price, the limit cannot stop it, so a token
// budget stands in (unless one was set) and the engineer is told.
func (r *Run) costGuard() string {
	if r.opts.MaxCost <= 0 {
		return ""
	}
	var unpriced []string
	for _, m := range []llm.Model{r.resolveModel(), r.localizeModel()} {
		if m != nil && !llm.IsPriced(m) {
			unpriced = append(unpriced, m.Name())
		}
	}
	if len(unpriced) == 0 {
		return ""
	}
	note := fmt.Sprintf("model %s has no price, so the $%.2f cost limit cannot stop it", unpriced[0], r.opts.MaxCost)
	if r.opts.MaxTokens == 0 {
		r.opts.MaxTokens = int(r.opts.MaxCost / blendedRate * 1e6)
		note += fmt.Sprintf("; a budget of %d tokens stands in", r.opts.MaxTokens)
	}
	return note + " (give it a price with --price or [prices] in the model settings)"
}
