package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/swe-adept/swe-adept/agent/event"
)

// liveThought is an agent's answer as it streams: its reasoning, then its
// words, shown on one line of the activity log that grows until the reply
// replaces it.
type liveThought struct {
	reasoning, text string
}

// liveKeep bounds what is kept of a streaming thought: the line shows its
// end, and the reply brings the whole.
const liveKeep = 4 << 10

// liveCursor ends a thought still being written.
const liveCursor = "▍"

// delta folds one streamed piece into the agent's live line. Deltas are
// lossy: one dropped under load leaves a gap that the reply mends.
func (a *activityPane) delta(e event.Event) {
	if e.Delta != nil && e.Delta.Restart {
		a.endLive(e.Agent)
		return
	}
	lt := a.live[e.Agent]
	if lt == nil {
		lt = &liveThought{}
		a.live[e.Agent] = lt
		a.addLine(logLine{at: e.Time, agent: e.Agent, style: "live"})
	}
	lt.text = keepEnd(lt.text+e.Text, liveKeep)
	if e.Delta != nil {
		lt.reasoning = keepEnd(lt.reasoning+e.Delta.Reasoning, liveKeep)
	}
	if i := a.liveLine(e.Agent); i >= 0 {
		a.log[i].text = lt.render()
	}
}

// render is the live line's text: the words so far, or the reasoning
// while there are none yet, on one line.
func (lt *liveThought) render() string {
	if strings.TrimSpace(lt.text) != "" {
		return "“" + oneLine(lt.text) + liveCursor
	}
	return "thinking: " + oneLine(lt.reasoning) + liveCursor
}

// endLive removes an agent's live line: its reply, a restart or the end
// of the run supersedes it.
func (a *activityPane) endLive(agent string) {
	delete(a.live, agent)
	if i := a.liveLine(agent); i >= 0 {
		a.log = append(a.log[:i], a.log[i+1:]...)
	}
}

// liveLine is the index of the agent's live line, or -1.
func (a *activityPane) liveLine(agent string) int {
	for i := len(a.log) - 1; i >= 0; i-- {
		if a.log[i].style == "live" && a.log[i].agent == agent {
			return i
		}
	}
	return -1
}

// writing reports whether an agent's answer is streaming in.
func (a *activityPane) writing(agent string) bool {
	lt := a.live[agent]
	return lt != nil && strings.TrimSpace(lt.text) != ""
}

// liveRows draws a live line: its text wrapped under the time and agent,
// and of a thought too long for maxWrap lines, the end, being written,
// after an ellipsis.
func (a *activityPane) liveRows(st Styles, l logLine, w int) []string {
	prefix := a.line(st, logLine{at: l.at, agent: l.agent})
	indent := ansi.StringWidth(prefix)
	room := max(w-indent, 10)
	text := l.text
	if r := []rune(text); len(r) > 2*maxWrap*room {
		text = string(r[len(r)-2*maxWrap*room:])
	}
	lines := strings.Split(ansi.Wrap(text, room, ""), "\n")
	if len(lines) > maxWrap {
		lines = lines[len(lines)-maxWrap:]
		lines[0] = "…" + strings.TrimLeft(lines[0], " ")
		lines = strings.Split(ansi.Wrap(strings.Join(lines, " "), room, ""), "\n")
		lines = lines[max(len(lines)-maxWrap, 0):]
	}
	out := make([]string, 0, len(lines))
	for i, line := range lines {
		lead := prefix
		if i > 0 {
			lead = strings.Repeat(" ", indent)
		}
		out = append(out, fit(lead+st.Text.Render(line), w))
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// keepEnd is the last n bytes of s, cut at a character boundary.
func keepEnd(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for i := 0; i < len(s) && i < 4; i++ {
		if s[i]&0xC0 != 0x80 {
			return s[i:]
		}
	}
	return s
}
