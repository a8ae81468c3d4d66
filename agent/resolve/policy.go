package resolve

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// ApprovalMode is how a run treats shell commands that are not on the allow-list.
type ApprovalMode string

const (
	ModeAsk  ApprovalMode = "ask"  // ask the engineer (TUI)
	ModeAuto ApprovalMode = "auto" // run them (headless, demo)
	ModeDeny ApprovalMode = "deny" // refuse them
)

// ParseApprovalMode checks an --approve value.
func ParseApprovalMode(s string) (ApprovalMode, error) {
	switch m := ApprovalMode(s); m {
	case ModeAsk, ModeAuto, ModeDeny:
		return m, nil
	}
	return "", fmt.Errorf("approval mode %q: want ask, auto or deny", s)
}

// Verdict is what the policy says about one command.
type Verdict string

const (
	Allow  Verdict = "allow"  // run it
	Ask    Verdict = "ask"    // run it only if the engineer approves
	Refuse Verdict = "refuse" // never run it; Reason says why
)

// Decision is a verdict with the reason the model reads.
type Decision struct {
	Verdict Verdict
	Reason  string
}

// Permissions is the shell policy of one run. Check is a pure function of
// the command and these fields: no file system, no environment.
type Permissions struct {
	Mode    ApprovalMode
	Workdir string   // absolute, cleaned
	Allow   []string // extra allowed command prefixes ("make test"), on top of DefaultAllow
	// Unconfined, when set, says why commands would run unconfined while
	// the engineer did not choose the approval mode. Then only the
	// prefixes in Allow run on their own (the engineer named them): in ask
	// mode every other command asks, and where nobody can answer it is
	// refused. DefaultAllow is no help: a test run executes the
	// repository's code.
	Unconfined string
}

// DefaultAllow lists command prefixes that run without asking: reading the
// code and running tests.
var DefaultAllow = []string{
	"python -m pytest", "python3 -m pytest", "pytest", "py.test",
	"python -m unittest", "python3 -m unittest", "go test", "go vet", "go build",
	"ls", "cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "wc", "echo", "printf",
	"find", "pwd", "sort", "uniq", "diff", "cmp", "tree", "file", "stat", "true", "false",
	"which", "type", "basename", "dirname", "cut", "tr", "nl", "cd", "test", "[",
	"git status", "git diff", "git log", "git show", "git grep", "git blame", "git ls-files", "git rev-parse",
}

// Check decides whether a command may run. Commands that reach outside the
// workspace are refused in every mode; allow-listed ones always run; the
// rest follow the mode.
func (p Permissions) Check(cmd string) Decision {
	if strings.TrimSpace(cmd) == "" {
		return Decision{Refuse, "the command is empty"}
	}
	if strings.ContainsRune(cmd, 0) {
		return Decision{Refuse, "the command contains a NUL byte"}
	}
	if r := p.rawRefusal(cmd); r != "" {
		return Decision{Refuse, r}
	}
	allowed, chosen := true, true
	cwd := p.Workdir
	for _, seg := range splitCommand(stripHeredocs(cmd)) {
		if r := p.segmentRefusal(seg, cwd); r != "" {
			return Decision{Refuse, r}
		}
		allowed = allowed && p.allowed(seg)
		chosen = chosen && p.chosen(seg)
		cwd = nextDir(seg, cwd)
	}
	if p.Unconfined != "" {
		return p.unconfined(chosen)
	}
	switch {
	case allowed || p.Mode == ModeAuto:
		return Decision{Allow, ""}
	case p.Mode == ModeDeny:
		return Decision{Refuse, "this command is not on the allow-list (reading code and running tests) and this run refuses the rest (--approve deny); use the file viewer/editor tool or an allowed command"}
	}
	return Decision{Ask, "not on the allow-list"}
}

// unconfined decides for a shell that is not confined: only what the
// engineer allowed by name runs without them.
func (p Permissions) unconfined(chosen bool) Decision {
	switch {
	case chosen:
		return Decision{Allow, ""}
	case p.Mode == ModeAsk:
		return Decision{Ask, p.Unconfined + ": every command needs the engineer's approval"}
	}
	return Decision{Refuse, p.Unconfined + ", and nobody can approve a command in this run, so none runs " +
		"(the engineer can allow one with --allow PREFIX or --approve auto); read and edit files with the file viewer/editor tool"}
}

// chosen reports whether the engineer's own prefixes allow seg.
func (p Permissions) chosen(seg segment) bool {
	w := commandWords(seg)
	return len(w) == 0 || slices.ContainsFunc(p.Allow, func(prefix string) bool { return hasPrefixWords(w, strings.Fields(prefix)) })
}

// network names programs that reach other machines wherever they appear,
// even inside quoted code.
var network = []string{"curl", "wget", "ssh", "scp", "sftp", "rsync", "telnet", "netcat", "ncat", "socat", "ftp", "sudo"}

func (p Permissions) rawRefusal(cmd string) string {
	if strings.Contains(cmd, "$HOME") || strings.Contains(cmd, "${HOME}") {
		return "$HOME is outside the workspace; use paths relative to the workspace"
	}
	for _, w := range rawWords(cmd) {
		if slices.Contains(network, progName(w)) {
			return fmt.Sprintf("%s reaches outside the workspace; this run works offline on the repository only", progName(w))
		}
		if !strings.HasPrefix(w, "/") && !strings.HasPrefix(w, "~") || strings.Trim(w, "/") == "" {
			continue // "/" and "//" inside code are operators; a bare "/" argument is checked per segment
		}
		if r := p.pathRefusal(w); r != "" {
			return r
		}
	}
	return ""
}

// nextDir follows "cd dir" so later relative paths resolve from there.
func nextDir(seg segment, cwd string) string {
	w := commandWords(seg)
	if len(w) != 2 || w[0] != "cd" {
		return cwd
	}
	if filepath.IsAbs(w[1]) {
		return filepath.Clean(w[1])
	}
	return filepath.Join(cwd, w[1])
}

func (p Permissions) segmentRefusal(seg segment, cwd string) string {
	w := commandWords(seg)
	for _, word := range seg {
		if r := p.pathRefusalFrom(word, cwd); r != "" {
			return r
		}
	}
	if len(w) == 0 {
		return ""
	}
	if r := programRefusal(w); r != "" {
		return r
	}
	if r := interactiveRefusal(w); r != "" {
		return r
	}
	if writesGitDir(seg) {
		return "the repository's .git is managed by the run; use the hypothesis_git tools for version control"
	}
	return ""
}

// pathRefusal refuses a word that names a path outside the workspace: an
// absolute path elsewhere, the home directory, or a relative path whose ..
// climbs out. Option values (--out=/etc/x) are checked too.
func (p Permissions) pathRefusal(word string) string { return p.pathRefusalFrom(word, p.Workdir) }

func (p Permissions) pathRefusalFrom(word, cwd string) string {
	if _, v, ok := strings.Cut(word, "="); ok && strings.HasPrefix(word, "-") {
		word = v
	}
	switch {
	case word == "~" || strings.HasPrefix(word, "~/") || strings.HasPrefix(word, "~") && len(word) > 1 && !strings.ContainsAny(word[1:2], " -"):
		return fmt.Sprintf("%s is in a home directory, outside the workspace; use paths relative to the workspace", word)
	case strings.HasPrefix(word, "/"):
		clean := filepath.Clean(word)
		if p.inside(clean) || systemPath(clean) {
			return ""
		}
		return fmt.Sprintf("%s is outside the workspace (%s); use paths relative to the workspace", word, p.Workdir)
	case strings.Contains(word, ".."):
		if strings.Contains(word, "://") {
			return ""
		}
		if !p.inside(filepath.Join(cwd, word)) {
			return fmt.Sprintf("%s climbs out of the workspace with ..; stay inside the workspace", word)
		}
	}
	return ""
}

func (p Permissions) inside(abs string) bool {
	if p.Workdir == "" {
		return false
	}
	return abs == p.Workdir || strings.HasPrefix(abs, p.Workdir+"/")
}

// systemPath allows the few places outside the workspace a command may
// name: the null and standard devices, /tmp, and programs by full path.
func systemPath(clean string) bool {
	switch clean {
	case "/dev/null", "/dev/zero", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/urandom", "/dev/random", "/tmp":
		return true
	}
	for _, dir := range []string{"/tmp/", "/dev/fd/", "/usr/bin/", "/bin/", "/usr/local/bin/"} {
		if strings.HasPrefix(clean, dir) {
			return true
		}
	}
	return false
}

func (p Permissions) allowed(seg segment) bool {
	w := commandWords(seg)
	if len(w) == 0 {
		return true
	}
	if isPythonScript(w) {
		return true
	}
	switch progName(w[0]) {
	case "find":
		if slices.ContainsFunc(w, func(s string) bool {
			return s == "-exec" || s == "-execdir" || s == "-delete" || s == "-ok" || strings.HasPrefix(s, "-fprint")
		}) {
			return false
		}
	case "sed":
		return slices.Contains(w, "-n") && !slices.ContainsFunc(w, func(s string) bool { return strings.HasPrefix(s, "-i") || s == "--in-place" })
	}
	for _, list := range [][]string{DefaultAllow, p.Allow} {
		for _, prefix := range list {
			if hasPrefixWords(w, strings.Fields(prefix)) {
				return true
			}
		}
	}
	return false
}

// isPythonScript is "python3 path/to/file.py [args]": running a file of the
// repository (whose path was already checked to be inside).
func isPythonScript(w []string) bool {
	if !isPython(progName(w[0])) || len(w) < 2 {
		return false
	}
	return strings.HasSuffix(w[1], ".py") && !strings.HasPrefix(w[1], "-")
}

func isPython(name string) bool {
	if name == "python" || name == "python3" {
		return true
	}
	v, ok := strings.CutPrefix(name, "python3.")
	return ok && v != "" && strings.Trim(v, "0123456789") == ""
}

func hasPrefixWords(w, prefix []string) bool {
	if len(prefix) == 0 || len(w) < len(prefix) {
		return false
	}
	if progName(w[0]) != prefix[0] {
		return false
	}
	return slices.Equal(w[1:len(prefix)], prefix[1:])
}

// writesGitDir reports a segment that would change files under .git.
func writesGitDir(seg segment) bool {
	w := commandWords(seg)
	if len(w) == 0 {
		return false
	}
	mutating := slices.Contains([]string{"rm", "mv", "cp", "ln", "touch", "chmod", "tee", "truncate", "dd", "install"}, progName(w[0])) ||
		progName(w[0]) == "sed" && slices.ContainsFunc(w, func(s string) bool { return strings.HasPrefix(s, "-i") })
	for i, word := range seg {
		redirect := i > 0 && strings.HasPrefix(seg[i-1], ">")
		if (mutating || redirect) && namesGitDir(word) {
			return true
		}
	}
	return false
}

func namesGitDir(word string) bool {
	for _, part := range strings.Split(filepath.ToSlash(word), "/") {
		if part == ".git" {
			return true
		}
	}
	return false
}
