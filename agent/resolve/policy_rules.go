package resolve

import (
	"fmt"
	"slices"
	"strings"
)

const useHypGit = "use the hypothesis_git tools (init_base, start_hypothesis, commit_todo, revert_to, merge_solution), which keep the run's branches and checkpoints consistent"

// programRefusal refuses programs that reach outside the workspace or take
// over the machine, whatever the mode.
func programRefusal(w []string) string {
	name := progName(w[0])
	switch name {
	case "nc", "su", "doas", "chroot", "ping", "dig", "nslookup":
		return name + " reaches outside the workspace; this run works offline on the repository only"
	case "apt", "apt-get", "yum", "dnf", "brew", "snap", "conda", "mamba":
		return name + " installs from the network; this run works offline with what is installed"
	case "shutdown", "reboot", "halt", "poweroff", "crontab", "systemctl", "mkfs":
		return name + " acts on the machine, not the repository"
	case "kill", "pkill", "killall":
		return name + " is not needed: each command runs in its own process group and is stopped at its time-out"
	case "git":
		return gitRefusal(w)
	case "pip", "pip3", "uv", "pipx", "poetry":
		return pipRefusal(w)
	case "npm", "yarn", "pnpm", "cargo", "gem":
		if len(w) > 1 && slices.Contains([]string{"install", "i", "add", "ci", "update", "fetch"}, w[1]) {
			return name + " " + w[1] + " installs from the network; this run works offline with what is installed"
		}
	case "go":
		if len(w) > 1 && (w[1] == "get" || w[1] == "install" || w[1] == "mod" && len(w) > 2 && w[2] == "download") {
			return "go " + w[1] + " fetches modules from the network; this run works offline with what is installed"
		}
	}
	if isPython(name) && len(w) > 2 && w[1] == "-m" && w[2] == "pip" {
		return pipRefusal(w[2:])
	}
	return ""
}

func pipRefusal(w []string) string {
	for _, a := range w[1:] {
		if a == "install" || a == "download" || a == "add" || a == "sync" {
			if slices.Contains(w, "--no-index") {
				return ""
			}
			return progName(w[0]) + " " + a + " installs from the network; this run works offline with what is installed (pip install --no-index is allowed)"
		}
	}
	return ""
}

// gitRefusal refuses git that reaches other machines, and git that moves
// branches or commits behind the run's back.
func gitRefusal(w []string) string {
	sub := gitSubcommand(w)
	switch sub {
	case "push", "pull", "fetch", "remote", "clone", "submodule", "ls-remote", "send-email", "request-pull", "daemon":
		return "git " + sub + " reaches outside the workspace; this run works offline on the local repository"
	case "checkout", "switch", "reset", "stash", "commit", "branch", "merge", "rebase", "cherry-pick", "revert",
		"clean", "tag", "worktree", "gc", "restore", "am", "update-ref", "reflog", "filter-branch", "prune", "config", "init":
		return "git " + sub + " is not run directly: " + useHypGit + "; to undo edits to one file use str_replace_editor undo_edit"
	case "":
		return ""
	}
	if sub == "add" && slices.ContainsFunc(w, func(s string) bool { return s == "-p" || s == "-i" || s == "--patch" || s == "--interactive" }) {
		return "git add -p waits for keyboard input, which commands here do not have; commit_todo stages everything"
	}
	return ""
}

// gitSubcommand skips git's global options (-C dir, -c k=v, --no-pager).
func gitSubcommand(w []string) string {
	for i := 1; i < len(w); i++ {
		a := w[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

var editors = []string{"vim", "vi", "nvim", "nano", "emacs", "pico", "ed", "joe", "micro"}

// interactiveRefusal refuses programs that wait for a keyboard or a screen:
// commands here have neither (stdin is /dev/null), so they would only hang
// until their time-out.
func interactiveRefusal(w []string) string {
	name := progName(w[0])
	switch {
	case slices.Contains(editors, name):
		return fmt.Sprintf("%s is an interactive editor and cannot run here; use str_replace_editor (view, create, str_replace, insert, undo_edit)", name)
	case slices.Contains([]string{"less", "more", "most", "man", "top", "htop", "watch", "tmux", "screen", "vimdiff"}, name):
		return fmt.Sprintf("%s needs an interactive terminal; use cat, head, tail, grep or str_replace_editor view instead", name)
	case isPython(name) || name == "ipython" || name == "node" || name == "irb":
		if name == "ipython" || len(w) == 1 || slices.Contains(w[1:], "-i") {
			return fmt.Sprintf("%s without a script waits for keyboard input; write the code to a file and run `python3 file.py`, or use `python3 -c '...'`", name)
		}
	case name == "bash" || name == "sh" || name == "zsh":
		if len(w) == 1 || slices.Contains(w[1:], "-i") {
			return name + " without a script or -c waits for keyboard input; run the commands directly"
		}
	case name == "tail":
		if slices.ContainsFunc(w, func(s string) bool { return s == "-f" || s == "-F" || strings.HasPrefix(s, "--follow") }) {
			return "tail -f never ends; use tail -n N"
		}
	case name == "read" || name == "select":
		return name + " waits for keyboard input, which commands here do not have"
	case name == "cd" && len(w) == 1:
		return "cd without a directory goes to the home directory, outside the workspace"
	}
	return ""
}
