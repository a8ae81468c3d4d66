package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/swe-adept/swe-adept/agent/event"
)

// dialogMode is what the approval dialog is waiting for.
type dialogMode int

const (
	modeAsk    dialogMode = iota // a / c / r (and A / e for a command)
	modeChoose                   // pick one of req.Options
	modeReason                   // type what the agent should do instead (a refusal)
	modeAdd                      // type a location to add (edit_locations)
	modeAllow                    // edit the prefix no longer asked about (bash)
	modeEdit                     // edit the command to run instead (bash)
)

// dialog is the modal approval dialog. It holds the request until the
// engineer answers; the root model sends the answer exactly once.
type dialog struct {
	req    *event.ApprovalRequest // as drawn: every string cleaned (shownRequest)
	raw    *event.ApprovalRequest // as the agent sent it: what answers carry
	mode   dialogMode
	choice int
	input  textinput.Model
	locs   []string // edit_locations: the list being edited
	orig   []string
	scroll int    // lines of the detail scrolled
	notice string // why the last input was not taken (a location that does not exist)
}

func newDialog(req *event.ApprovalRequest) *dialog {
	in := textinput.New()
	in.CharLimit = 500
	d := &dialog{req: shownRequest(req), raw: req, input: in}
	if req.Action == "edit_locations" {
		d.locs = locationsOf(d.req)
		d.orig = append([]string(nil), d.locs...)
	}
	return d
}

// locationsOf is the ranked list an edit_locations request offers.
func locationsOf(req *event.ApprovalRequest) []string {
	src := req.Options
	if len(src) == 0 {
		src = strings.Split(req.Target, "\n")
	}
	var out []string
	for _, s := range src {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (d *dialog) editing() bool { return d.req.Action == "edit_locations" }

// key handles one key; it returns the reply once the engineer has answered.
func (d *dialog) key(k KeyMap, msg tea.KeyMsg) (*event.Reply, tea.Cmd) {
	switch d.mode {
	case modeReason, modeAdd, modeAllow, modeEdit:
		return d.inputKey(k, msg)
	case modeChoose:
		return d.chooseKey(k, msg), nil
	}
	d.notice = ""
	if d.editing() {
		return d.editKey(k, msg)
	}
	if d.req.Action == "bash" {
		if rep, cmd, ok := d.commandKey(k, msg); ok {
			return rep, cmd
		}
	}
	switch {
	case key.Matches(msg, k.Approve):
		return &event.Reply{Decision: event.Approve}, nil
	case key.Matches(msg, k.Choose) && d.choosable():
		d.mode = modeChoose
	case key.Matches(msg, k.Refuse):
		return nil, d.startRefusal()
	case key.Matches(msg, k.Down):
		d.scroll++
	case key.Matches(msg, k.Up):
		d.scroll = max(d.scroll-1, 0)
	}
	return nil, nil
}

// startInput opens the text input for mode, holding value to edit.
func (d *dialog) startInput(mode dialogMode, placeholder, value string) tea.Cmd {
	d.mode = mode
	d.input.Reset()
	d.input.Placeholder = placeholder
	d.input.SetValue(value)
	d.input.CursorEnd()
	return d.input.Focus()
}

// refusePrompt is what a refusal asks for: the answer the agent reads.
const refusePrompt = "what should it do instead? the agent reads this"

func (d *dialog) startRefusal() tea.Cmd { return d.startInput(modeReason, refusePrompt, "") }

func (d *dialog) inputKey(k KeyMap, msg tea.KeyMsg) (*event.Reply, tea.Cmd) {
	switch msg.Type {
	case tea.KeyEsc:
		d.mode = modeAsk
		d.input.Blur()
		return nil, nil
	case tea.KeyEnter:
		text := strings.TrimSpace(d.input.Value())
		mode := d.mode
		if mode == modeAllow && text == "" {
			d.notice = "give the prefix of the commands to allow, or esc"
			return nil, nil
		}
		d.input.Blur()
		d.mode = modeAsk
		return d.entered(mode, text)
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(visibleKey(msg))
	return nil, cmd
}

// entered turns the text typed in mode into a reply, or, for a location,
// into the check that adds it.
func (d *dialog) entered(mode dialogMode, text string) (*event.Reply, tea.Cmd) {
	switch mode {
	case modeReason:
		if text == "" {
			text = "refused by the engineer"
		}
		return &event.Reply{Decision: event.Refuse, Reason: text}, nil
	case modeAllow:
		return &event.Reply{Decision: event.Choose, Choice: "always: " + text}, nil
	case modeEdit:
		if text == "" || text == d.req.Target {
			return nil, nil // nothing else to run: the question stays open
		}
		return &event.Reply{Decision: event.Choose, Choice: text}, nil
	}
	if text == "" {
		return nil, nil
	}
	if !d.req.Checks() {
		d.added(text, nil) // nothing to vet it with: no I/O, so no command
		return nil, nil
	}
	return nil, d.checkLocation(text)
}

// checkLocation vets a location the engineer typed with the run's own
// check, off the UI goroutine; locationChecked brings the verdict back.
func (d *dialog) checkLocation(loc string) tea.Cmd {
	req := d.raw
	return func() tea.Msg { return locationChecked{req: req, loc: loc, err: req.CheckItem(loc)} }
}

// locationChecked is the run's verdict on a location typed in a dialog.
type locationChecked struct {
	req *event.ApprovalRequest
	loc string
	err error
}

// added takes a checked location into the list, or says why not.
func (d *dialog) added(loc string, err error) {
	if err != nil {
		d.notice = "not added: " + err.Error()
		return
	}
	d.locs = append(d.locs, loc)
	d.choice = len(d.locs) - 1
}

func (d *dialog) chooseKey(k KeyMap, msg tea.KeyMsg) *event.Reply {
	switch {
	case key.Matches(msg, k.Cancel):
		d.mode = modeAsk
	case key.Matches(msg, k.Up):
		d.choice = max(d.choice-1, 0)
	case key.Matches(msg, k.Down):
		d.choice = min(d.choice+1, len(d.req.Options)-1)
	case key.Matches(msg, k.Confirm):
		return &event.Reply{Decision: event.Choose, Choice: d.raw.Options[d.choice]}
	}
	return nil
}

// editKey edits the ranked locations before resolution starts.
func (d *dialog) editKey(k KeyMap, msg tea.KeyMsg) (*event.Reply, tea.Cmd) {
	n := len(d.locs)
	switch {
	case key.Matches(msg, k.Confirm, k.Approve):
		// Both send the list as it stands: approving must not drop edits.
		return d.editReply(), nil
	case key.Matches(msg, k.Refuse):
		return nil, d.startRefusal()
	case key.Matches(msg, k.Add):
		return nil, d.startInput(modeAdd, "path:Qualified.name or path", "")
	case key.Matches(msg, k.Up):
		d.choice = max(d.choice-1, 0)
	case key.Matches(msg, k.Down):
		d.choice = max(min(d.choice+1, n-1), 0)
	case key.Matches(msg, k.Drop) && n > 0:
		d.locs = append(d.locs[:d.choice:d.choice], d.locs[d.choice+1:]...)
		d.choice = max(min(d.choice, len(d.locs)-1), 0)
	case key.Matches(msg, k.MoveUp) && d.choice > 0:
		d.locs[d.choice-1], d.locs[d.choice] = d.locs[d.choice], d.locs[d.choice-1]
		d.choice--
	case key.Matches(msg, k.MoveDown) && d.choice < n-1:
		d.locs[d.choice+1], d.locs[d.choice] = d.locs[d.choice], d.locs[d.choice+1]
		d.choice++
	}
	return nil, nil
}

// editReply approves the list as offered, or chooses the edited one.
func (d *dialog) editReply() *event.Reply {
	if slices.Equal(d.locs, d.orig) {
		return &event.Reply{Decision: event.Approve}
	}
	return &event.Reply{Decision: event.Choose, Choice: strings.Join(rawLocations(d.raw, d.locs), "\n")}
}

// headline says in a few words what the agent asks for.
func (d *dialog) headline() string {
	switch d.req.Action {
	case "revert_to":
		return "Revert to checkpoint " + d.req.Target + "?"
	case "merge_solution":
		return "Merge " + shortBranch(d.req.Target) + " as the solution?"
	case "bash":
		return "Run this command?"
	case "edit_locations":
		return "Resolve the issue at these locations?"
	}
	return fmt.Sprintf("%s %s?", d.req.Action, d.req.Target)
}

// view draws the dialog's body lines for width w and height h; note, if
// set, is a warning shown under the headline.
func (d *dialog) view(st Styles, k KeyMap, note string, w, h int) []string {
	var out []string
	for _, l := range wrapHard("Approval: "+d.headline(), w) {
		out = append(out, st.DialogTitle.Render(l))
	}
	for _, l := range wrap(note, w) {
		if l != "" {
			out = append(out, st.Note.Render(l))
		}
	}
	out = append(out, d.warning(st, w)...)
	out = append(out, "")
	foot := d.footer(st, k, w)
	body := append(d.intro(st, w), d.body(st, w)...)
	room := max(h-len(out)-len(foot), 1)
	if len(body) > room {
		room = max(room-1, 1) // for the line that says what is below
	}
	d.scroll = max(min(d.scroll, len(body)-room), 0)
	end := min(d.scroll+room, len(body))
	for _, l := range body[d.scroll:end] {
		out = append(out, fit(l, w))
	}
	if end < len(body) {
		out = append(out, moreBelow(st, k, len(body)-end, w))
	}
	for len(out) < h-len(foot) {
		out = append(out, "")
	}
	return append(out, foot...)
}

// body is the scrollable part: the location list, the options, or the
// report and diff of what would change.
func (d *dialog) body(st Styles, w int) []string {
	var out []string
	if d.editing() {
		for i, l := range d.locs {
			out = append(out, d.pick(st, i == d.choice, fmt.Sprintf("%d. %s", i+1, l)))
		}
		return out
	}
	if d.mode == modeChoose {
		out = append(out, st.Bold.Render("Choose instead:"))
		for i, o := range d.req.Options {
			out = append(out, d.pick(st, i == d.choice, o))
		}
		return out
	}
	if r := strings.TrimSpace(d.req.Report); r != "" {
		// The compare report is plain text laid out by lines and
		// indentation; markdown would join and renumber its lines.
		out = append(out, st.Bold.Render("Compare report"))
		out = append(out, preformatted(st, r, w)...)
		out = append(out, "")
	}
	if p := strings.TrimSpace(d.req.Diff); p != "" {
		label := "What changes"
		if d.req.Action == "revert_to" {
			label = "Checkpoint diff that will be dropped"
		}
		out = append(out, st.Bold.Render(label))
		out = append(out, strings.Split(colorPatch(st, p), "\n")...)
	}
	return out
}

func (d *dialog) pick(st Styles, on bool, s string) string {
	if on {
		return st.Cursor.Render("› " + s)
	}
	return "  " + s
}

func (d *dialog) footer(st Styles, k KeyMap, w int) []string {
	out := []string{""}
	if d.notice != "" {
		out = append(out, wrapHard(st.StatusWarn.Render(d.notice), w)...)
	}
	switch d.mode {
	case modeReason, modeAdd, modeAllow, modeEdit:
		return append(out, st.Bold.Render(inputTitles[d.mode]), fit(d.input.View(), w), st.Dim.Render("enter send · esc back"))
	case modeChoose:
		return append(out, st.Dim.Render("↑/↓ pick · enter choose · esc back"))
	}
	var parts []string
	for _, b := range d.keys(k) {
		parts = append(parts, st.StatusKey.Render(b.Help().Key)+" "+b.Help().Desc)
	}
	return append(out, joinWrapped(parts, " · ", w)...)
}

// inputTitles say what the text input is for.
var inputTitles = map[dialogMode]string{
	modeReason: "Refuse, and tell it what to do instead:",
	modeAdd:    "Add a location:",
	modeAllow:  "Approve, and don't ask again for commands starting with:",
	modeEdit:   "Run this command instead:",
}

// keys is the keys the dialog answers to in its main mode, the answers
// first.
func (d *dialog) keys(k KeyMap) []key.Binding {
	var out []key.Binding
	for _, b := range k.dialogHelp(d.req.Action) {
		switch {
		case b.Help() == k.Choose.Help() && !d.choosable():
			continue // nothing to choose from
		case b.Help() == k.Always.Help():
			p := d.prefix()
			if p == "" {
				continue // a compound command has no prefix to allow
			}
			b.SetHelp(b.Help().Key, fmt.Sprintf("approve, don't ask again for %q", p+" …"))
		}
		out = append(out, b)
	}
	return out
}

// joinWrapped joins parts with sep into lines of at most w cells, breaking
// only between parts.
func joinWrapped(parts []string, sep string, w int) []string {
	var out []string
	line := ""
	for _, p := range parts {
		if line != "" && ansi.StringWidth(line+sep+p) > w {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += sep
		}
		line += p
	}
	return append(out, fit(line, w))
}

// wrapHard breaks s into lines of at most w cells, on spaces where it can
// and inside a word longer than a line.
func wrapHard(s string, w int) []string {
	return strings.Split(releaseHyphens(ansi.Wrap(holdHyphens(s), max(w, 1), "")), "\n")
}

// wrap breaks s into lines of at most w cells on spaces.
func wrap(s string, w int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && ansi.StringWidth(line)+1+ansi.StringWidth(word) > w {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return out
}
