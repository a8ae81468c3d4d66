package tui

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/x/ansi"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/internal/termtext"
)

// logLine is one entry of the activity log.
type logLine struct {
	at    time.Time
	agent string
	text  string
	style string // "", "error", "note", "tool", "fail"
	call  string // tool call id: its result replaces the line
}

// maxLog bounds the log so a long run cannot grow memory without limit.
const maxLog = 2000

// activityPane is the agents' steps and messages, their token use and
// cost, and a spinner while a model call or a tool runs.
type activityPane struct {
	log    []logLine
	usage  map[string]event.UsageInfo
	busy   map[string]string
	said   map[string]string           // each agent's last logged words
	since  map[string]time.Time        // when each agent's model call began
	retry  map[string]*event.RetryInfo // a call waiting to be tried again
	live   map[string]*liveThought     // each agent's answer as it streams
	spin   spinner.Model
	offset int // lines scrolled up from the bottom
}

func newActivityPane() activityPane {
	sp := spinner.New(spinner.WithSpinner(spinner.MiniDot))
	return activityPane{usage: map[string]event.UsageInfo{}, busy: map[string]string{}, said: map[string]string{},
		since: map[string]time.Time{}, retry: map[string]*event.RetryInfo{}, live: map[string]*liveThought{}, spin: sp}
}

// startCall marks an agent waiting for its model. The clock is the
// screen's, not the event's, so a replayed run shows no stale wait.
func (a *activityPane) startCall(agent string) {
	a.busy[agent] = "thinking"
	a.since[agent] = time.Now()
	delete(a.retry, agent)
}

// retrying notes a failed call that will be tried again.
func (a *activityPane) retrying(e event.Event) {
	a.retry[e.Agent] = e.Retry
	a.add(e, e.Text, "note")
}

// slowCall is how long a model call runs before its time is shown.
const slowCall = 3 * time.Second

// busyText is what an agent is doing: a tool, or its model call with the
// time it has taken and any wait for a retry.
func (a *activityPane) busyText(agent string) string {
	what := a.busy[agent]
	if what != "thinking" {
		return what
	}
	if a.writing(agent) {
		what = "writing"
	}
	if r := a.retry[agent]; r != nil {
		why := "connection"
		if r.Status != 0 {
			why = fmt.Sprint(r.Status)
		}
		left := max(time.Until(r.Until), 0).Round(time.Second)
		what = fmt.Sprintf("retrying in %s (%s)", left, why)
	}
	if d := time.Since(a.since[agent]); !a.since[agent].IsZero() && d >= slowCall {
		what += fmt.Sprintf(" · %s", d.Round(time.Second))
	}
	return what
}

func (a *activityPane) add(e event.Event, text, style string) {
	a.addLine(logLine{at: e.Time, agent: e.Agent, text: text, style: style})
}

// result replaces the line of the call it answers, so each tool step
// takes one line; a result whose call scrolled away gets its own.
func (a *activityPane) result(e event.Event, text, style string) {
	for i := len(a.log) - 1; i >= max(len(a.log)-50, 0); i-- {
		if a.log[i].call == e.Tool.CallID && e.Tool.CallID != "" {
			a.log[i].text, a.log[i].style, a.log[i].at = termtext.Clean(text), style, e.Time
			return
		}
		if a.log[i].agent == e.Agent {
			break // the agent said more since the call (an approval): keep the order
		}
	}
	a.add(e, text, style)
}

// addLine logs l. Its text is cleaned here too, for lines that do not
// come from an event (notices, the engineer's notes).
func (a *activityPane) addLine(l logLine) {
	l.text = termtext.Clean(l.text)
	a.log = append(a.log, l)
	if len(a.log) > maxLog {
		a.log = a.log[len(a.log)-maxLog:]
	}
}

func (a *activityPane) isBusy() bool { return len(a.busy) > 0 }

// setUsage records an agent's running totals. Model replies and usage
// events both carry totals; an older total arriving late never lowers them.
func (a *activityPane) setUsage(agent string, u *event.UsageInfo) {
	if u == nil {
		return
	}
	if old, ok := a.usage[agent]; ok && u.Calls < old.Calls {
		return
	}
	a.usage[agent] = *u
}

// atBottom is the entry at the bottom of the pane as scrolled: the one
// enter shows in full.
func (a *activityPane) atBottom() (logLine, bool) {
	i := len(a.log) - 1 - a.offset
	if i < 0 || i >= len(a.log) {
		return logLine{}, false
	}
	return a.log[i], true
}

func (a *activityPane) scroll(delta int) {
	a.offset = max(min(a.offset-delta, len(a.log)-1), 0)
}

// meters is one line per agent, w cells wide: its cost and how full its
// context is, always whole; then its tokens, calls and what it is doing,
// as they fit.
func (a *activityPane) meters(st Styles, w int) []string {
	agents := map[string]bool{}
	for ag := range a.usage {
		agents[ag] = true
	}
	for ag := range a.busy {
		agents[ag] = true
	}
	var out []string
	for _, ag := range slices.Sorted(maps.Keys(agents)) {
		for level := 0; ; level++ {
			line, last := a.meter(st, ag, level)
			if last || ansi.StringWidth(line) <= w {
				out = append(out, line)
				break
			}
		}
	}
	return out
}

// meter is one agent's line, shortened by level: 1 drops the calls, 2 the
// cached tokens, 3 the tokens, 4 shortens the agent's name, 5 what it is
// doing to its spinner. last reports the shortest.
func (a *activityPane) meter(st Styles, ag string, level int) (line string, last bool) {
	name := fmt.Sprintf("%-8s", ag)
	if level >= 4 {
		name = ag[:min(3, len(ag))]
	}
	line = st.agent(ag).Render(name)
	if u, ok := a.usage[ag]; ok {
		if level < 3 {
			line += " " + tokens(u.PromptTokens+u.CompletionTokens) + " tok ·"
		}
		if level < 1 {
			line += fmt.Sprintf(" %d %s ·", u.Calls, plural(u.Calls, "call", "calls"))
		}
		line += " " + cost(u.Cost, u.Priced)
		if level < 2 {
			line += cachedUse(u)
		}
		line += contextUse(u)
	}
	if _, ok := a.busy[ag]; ok {
		what := " " + a.busyText(ag)
		if level >= 5 {
			what = ""
		}
		line += " " + st.Current.Render(a.spin.View()+what)
	}
	return line, level >= 5
}

func (a *activityPane) view(st Styles, r rect) []string {
	head := a.meters(st, r.w)
	if len(head) > 0 {
		head = append(head, st.Dim.Render(strings.Repeat("─", r.w)))
	}
	h := max(r.h-len(head), 0)
	// Fill from the newest entry up; an agent's words wrap onto a few lines.
	var rows []string
	for i := len(a.log) - 1 - a.offset; i >= 0 && len(rows) < h; i-- {
		entry := a.rows(st, a.log[i], r.w)
		if len(rows)+len(entry) > h && len(rows) > 0 {
			break // show whole entries only; the gap goes above them
		}
		rows = append(entry, rows...)
	}
	if len(rows) > h {
		rows = rows[len(rows)-h:]
	}
	for len(rows) < h && len(a.log) > h {
		rows = append([]string{""}, rows...)
	}
	return append(head, rows...)
}

// maxWrap is how many lines an agent's words may take in the log.
const maxWrap = 3

func (a *activityPane) rows(st Styles, l logLine, w int) []string {
	if l.style == "live" {
		return a.liveRows(st, l, w)
	}
	first := a.line(st, l)
	if (l.style != "" && l.style != "error") || ansi.StringWidth(first) <= w {
		return []string{fit(first, w)}
	}
	indent := 13
	lines := strings.Split(ansi.Wordwrap(holdHyphens(first), w, ""), "\n")
	if len(lines) == 1 {
		return []string{fit(first, w)}
	}
	rest := releaseHyphens(ansi.Wrap(strings.Join(lines[1:], " "), w-indent, ""))
	lines[0] = releaseHyphens(lines[0])
	out := []string{fit(lines[0], w)}
	for _, r := range strings.Split(rest, "\n") {
		if len(out) == maxWrap {
			out[maxWrap-1] = fit(out[maxWrap-1]+" "+r, w)
			break
		}
		out = append(out, fit(strings.Repeat(" ", indent)+r, w))
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
		tag = st.agent(l.agent).Render(ansi.Truncate(l.agent, 3, "")) + " "
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

// cachedUse is the prompt tokens read from the cache: " (1.2k cached)".
func cachedUse(u event.UsageInfo) string {
	if u.CachedTokens == 0 {
		return ""
	}
	return " (" + tokens(u.CachedTokens) + " cached)"
}

// contextUse is how full the agent's context was on its last call:
// " · ctx 41.2k/400.0k", or " · ctx 41.2k" when the window is unknown.
func contextUse(u event.UsageInfo) string {
	switch {
	case u.Context == 0:
		return ""
	case u.Window > 0:
		return fmt.Sprintf(" · ctx %s/%s", tokens(u.Context), tokens(u.Window))
	}
	return " · ctx " + tokens(u.Context)
}

// cost prints dollars, or "unpriced" for a model without a price: never a
// misleading $0.
func cost(c float64, priced bool) string {
	if !priced {
		return "unpriced"
	}
	return fmt.Sprintf("$%.4f", c)
}
