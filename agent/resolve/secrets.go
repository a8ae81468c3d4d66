package resolve

import (
	"regexp"
	"slices"
	"strings"

	"github.com/swe-adept/swe-adept/sandbox"
)

// secretNames are parts of environment variable names whose values are
// scrubbed from what commands print, should a value reach the output some
// other way than the environment (a file, a log). Commands never get them:
// their environment is an allow-list (sandbox.Env).
var secretNames = []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY",
	"ACCESS_KEY", "_PWD", "AUTH_"}

// secretSuffixes end names of secrets: AZURE_OPENAI_KEY, HF_AUTH.
var secretSuffixes = []string{"_KEY", "_AUTH"}

// commandSettings make programs behave without a terminal: no pagers, no
// prompts, no colour, no .pyc files littering the patch.
var commandSettings = []string{
	"PAGER=cat", "GIT_PAGER=cat", "MANPAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true",
	"EDITOR=true", "VISUAL=true", "TERM=dumb", "NO_COLOR=1", "PYTHONDONTWRITEBYTECODE=1",
	"PYTHONUNBUFFERED=1", "CI=1",
}

// CommandEnv is the environment commands get from env: the sandbox's
// allow-list with the variables named in pass and never those in deny
// (the model's key and header variables), then commandSettings.
func CommandEnv(env, pass, deny []string) []string {
	out := sandbox.Env(env, pass, deny)
	out = slices.DeleteFunc(out, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.ContainsFunc(commandSettings, func(s string) bool { return strings.HasPrefix(s, name+"=") })
	})
	return append(out, commandSettings...)
}

func isSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, s := range secretNames {
		if strings.Contains(up, s) {
			return true
		}
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	return false
}

// urlPassword finds the password in a URL (scheme://user:PASSWORD@).
var urlPassword = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*:([^\s/@]+)@`)

// SecretValues returns the values in env worth hiding, for Scrub: those of
// variables named like secrets, and the passwords in URLs (DATABASE_URL).
// Short values are left: hiding "1" would hide every 1.
func SecretValues(env []string) []string {
	var out []string
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		if isSecretName(name) && len(v) >= 8 {
			out = append(out, v)
		}
		for _, m := range urlPassword.FindAllStringSubmatch(v, -1) {
			if len(m[1]) >= 4 {
				out = append(out, m[1])
			}
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
