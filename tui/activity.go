package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"

	"github.com/swe-adept/swe-adept/agent/event"
)

// logLine is one entry of the activity log.
type logLine struct {
	at    time.Time
	agent string
	text  string
	style string // "", "error", "note", "tool", "fail"
}

// maxLog bounds the log so a long run cannot grow memory without limit.
const maxLog = 2000

// activityPane is the agents' steps and messages, their token use and
// cost, and a spinner while a model call or a tool runs.
type activityPane struct {
	log    []logLine
	usage  map[string]event.UsageInfo
	totals map[string]bool // agents with Usage totals (model replies then stop adding)
	busy   map[string]string
	said   map[string]string // each agent's last logged words
	spin   spinner.Model
	offset int // lines scrolled up from the bottom
}

func newActivityPane() activityPane {
	sp := spinner.New(spinner.WithSpinner(spinner.MiniDot))
	return activityPane{usage: map[string]event.UsageInfo{}, totals: map[string]bool{}, busy: map[string]string{}, said: map[string]string{}, spin: sp}
}

func (a *activityPane) add(e event.Event, text, style string) {
	a.log = append(a.log, logLine{at: e.Time, agent: e.Agent, text: text, style: style})
	if len(a.log) > maxLog {
		a.log = a.log[len(a.log)-maxLog:]
	}
}

func (a *activityPane) isBusy() bool { return len(a.busy) > 0 }

// addUsage counts one model reply unless the run reports totals.
func (a *activityPane) addUsage(agent string, u *event.UsageInfo) {
	if u == nil || a.totals[agent] {
		return
	}
	t := a.usage[agent]
	t.PromptTokens += u.PromptTokens
	t.CompletionTokens += u.CompletionTokens
	t.Calls++
	t.Cost += u.Cost
	t.Priced = u.Priced
	a.usage[agent] = t
}

func (a *activityPane) setUsage(agent string, u *event.UsageInfo) {
	if u == nil {
		return
	}
	a.totals[agent] = true
	a.usage[agent] = *u
}

func (a *activityPane) scroll(delta int) {
	a.offset = max(min(a.offset-delta, len(a.log)-1), 0)
}

// meters is one line per agent: tokens, calls and cost.
func (a *activityPane) meters(st Styles) []string {
	seen := map[string]bool{}
	var agents []string
	for _, m := range []map[string]bool{keys(a.usage), keys(a.busy)} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				agents = append(agents, k)
			}
		}
	}
	sort.Strings(agents)
	var out []string
	for _, ag := range agents {
		line := st.agent(ag).Render(fmt.Sprintf("%-8s", ag))
		if u, ok := a.usage[ag]; ok {
			line += fmt.Sprintf(" %s tok · %d calls · %s", tokens(u.PromptTokens+u.CompletionTokens), u.Calls, cost(u.Cost, u.Priced))
		}
		if what, ok := a.busy[ag]; ok {
			line += " " + st.Current.Render(a.spin.View()+" "+what)
		}
		out = append(out, line)
	}
	return out
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func (a *activityPane) view(st Styles, r rect) []string {
	head := a.meters(st)
	if len(head) > 0 {
		head = append(head, st.Dim.Render(strings.Repeat("─", r.w)))
	}
	h := max(r.h-len(head), 0)
	end := len(a.log) - a.offset
	start := max(end-h, 0)
	out := head
	for _, l := range a.log[start:end] {
		out = append(out, fit(a.line(st, l), r.w))
	}
	return out
}

// tail is the last n log lines, for the strip under a tab on small screens;
// the first line carries the busy agents' spinners.
func (a *activityPane) tail(st Styles, n, w int) []string {
	var out []string
	for _, l := range a.log[max(len(a.log)-n, 0):] {
		out = append(out, fit(" "+a.line(st, l), w))
	}
	for len(out) < n {
		out = append([]string{""}, out...)
	}
	return out
}

func (a *activityPane) line(st Styles, l logLine) string {
	ts := ""
	if !l.at.IsZero() {
		ts = st.Dim.Render(l.at.UTC().Format("15:04:05")) + " "
	}
	tag := ""
	if l.agent != "" {
		tag = st.agent(l.agent).Render(l.agent[:min(3, len(l.agent))]) + " "
	}
	text := firstLine(l.text)
	switch l.style {
	case "error", "fail":
		text = st.Error.Render(text)
	case "note":
		text = st.Note.Render(text)
	case "tool":
		text = st.Text.Render(text)
	}
	return ts + tag + text
}

// tokens prints a count compactly: 950, 12.3k, 1.2M.
func tokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// cost prints dollars, or "unpriced" for a model without a price: never a
// misleading $0.
func cost(c float64, priced bool) string {
	if !priced {
		return "unpriced"
	}
	return fmt.Sprintf("$%.4f", c)
}
