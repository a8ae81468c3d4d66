package memory

import "fmt"

// Status is the execution state of a hypothesis or a to-do. Its value is the character between
// the brackets of the markdown tag, so it converts directly to the event layer's status strings.
type Status string

// The four statuses of the paper's hypothesis_plan tools.
const (
	Pending    Status = " " // [ ]
	InProgress Status = "-" // [-]
	Succeeded  Status = "v" // [v]
	Failed     Status = "!" // [!]
)

// Statuses lists every valid status, in the order a plan moves through them.
var Statuses = []Status{Pending, InProgress, Succeeded, Failed}

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case Pending, InProgress, Succeeded, Failed:
		return true
	}
	return false
}

// Tag is the canonical markdown tag, "[ ]", "[-]", "[v]" or "[!]".
func (s Status) Tag() string {
	if !s.Valid() {
		return "[?]"
	}
	return "[" + string(s) + "]"
}

// String is the status in words, for people and error messages.
func (s Status) String() string {
	switch s {
	case Pending:
		return "pending"
	case InProgress:
		return "in progress"
	case Succeeded:
		return "successful"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("invalid status %q", string(s))
}

// Done reports whether the item has finished, successfully or not.
func (s Status) Done() bool { return s == Succeeded || s == Failed }

// ParseStatus reads the inside of a tag (what is between the brackets, spaces allowed) and
// accepts the spellings models use: "" or spaces for pending, "-" "~" "/" for in progress,
// "v" "V" "x" "X" "✓" "✔" "✅" for successful, "!" "✗" "✘" "❌" for failed.
func ParseStatus(inner string) (Status, bool) {
	s, ok := tagAliases[trimSpaces(inner)]
	return s, ok
}

var tagAliases = map[string]Status{
	"":  Pending,
	"-": InProgress, "~": InProgress, "/": InProgress, "…": InProgress, ">": InProgress,
	"v": Succeeded, "V": Succeeded, "x": Succeeded, "X": Succeeded,
	"✓": Succeeded, "✔": Succeeded, "✅": Succeeded, "√": Succeeded,
	"!": Failed, "✗": Failed, "✘": Failed, "❌": Failed,
}

func trimSpaces(s string) string {
	start, end := 0, len(s)
	for start < end && (s[start] == ' ' || s[start] == '\t') {
		start++
	}
	for end > start && (s[end-1] == ' ' || s[end-1] == '\t') {
		end--
	}
	return s[start:end]
}
