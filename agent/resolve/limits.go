package resolve

import "fmt"

// Limits are how much of a command's output and of a file the tools show
// the model at once.
type Limits struct {
	Bash int // bytes of command output
	View int // characters of one file view

	windowed bool // sized for a known window
}

// LimitsFor sizes the outputs for a model whose context window is window
// tokens: a command's output may take about a sixteenth of the window and
// a file view a tenth (at four characters a token), so a 12k-token model
// reads 3,000-character outputs and 4,800-character pages where a large
// window gets DefaultMaxOutput and MaxViewChars. An unknown window (0)
// gets the defaults too; the conversation is trimmed to the window anyway.
func LimitsFor(window int) Limits {
	if window <= 0 {
		return Limits{Bash: DefaultMaxOutput, View: MaxViewChars}
	}
	return Limits{
		Bash:     min(max(window*4/16, minBashOutput), DefaultMaxOutput),
		View:     min(max(window*4/10, minViewChars), MaxViewChars),
		windowed: true,
	}
}

// bash is the command output the model reads: what the engineer asked for
// (--max-output; 0: the window's share), never more than the window's share
// of a model whose window is known.
func (l Limits) bash(asked int) int {
	if asked <= 0 {
		return l.Bash
	}
	if l.windowed {
		return min(asked, l.Bash)
	}
	return asked
}

// The smallest outputs worth showing, whatever the window.
const (
	minBashOutput = 1500
	minViewChars  = 2000
)

// paging tells the model how to see lines cut from the middle of an
// output to fit its context window.
func paging(first, last int, numbered bool) string {
	if numbered {
		return fmt.Sprintf("to see them, view the file with view_range [%d, %d] (or bash: sed -n '%d,%dp' FILE)", first, last, first, last)
	}
	return fmt.Sprintf("to see them, run the command again printing only those lines (| sed -n '%d,%dp'), or narrow it with grep, head or tail", first, last)
}
