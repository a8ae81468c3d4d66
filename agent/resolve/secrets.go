package resolve

import (
	"slices"
	"strings"
)

// secretNames are parts of environment variable names whose values must not
// reach commands the model writes: a command could print them, and its
// output is stored in events, the transcript and the log.
var secretNames = []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY"}

// commandSettings make programs behave without a terminal: no pagers, no
// prompts, no colour, no .pyc files littering the patch.
var commandSettings = []string{
	"PAGER=cat", "GIT_PAGER=cat", "MANPAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true",
	"EDITOR=true", "VISUAL=true", "TERM=dumb", "NO_COLOR=1", "PYTHONDONTWRITEBYTECODE=1",
	"PYTHONUNBUFFERED=1", "CI=1",
}

// CommandEnv returns env without secrets and with commandSettings.
func CommandEnv(env []string) []string {
	out := make([]string, 0, len(env)+len(commandSettings))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if isSecretName(name) || overridden(name) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, commandSettings...)
}

func isSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, s := range secretNames {
		if strings.Contains(up, s) {
			return true
		}
	}
	return false
}

// overridden names the variables CommandEnv drops from the caller's
// environment: git's repository pointers, and those commandSettings sets.
func overridden(name string) bool {
	switch name {
	case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_NAMESPACE":
		return true // git in a command must see the workspace, not a repository the caller pointed at
	}
	return slices.ContainsFunc(commandSettings, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}

// SecretValues returns the values of secret variables in env that are long
// enough to be worth hiding, for Scrub.
func SecretValues(env []string) []string {
	var out []string
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		if isSecretName(name) && len(v) >= 8 {
			out = append(out, v)
		}
	}
	return out
}

// Scrub replaces every secret value in text with [redacted].
func Scrub(text string, secrets []string) string {
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			text = strings.ReplaceAll(text, s, "[redacted]")
		}
	}
	return text
}
