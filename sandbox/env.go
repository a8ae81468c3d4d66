package sandbox

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// allowedEnv is what a command may inherit from swe-adept's environment:
// what programs and test runs need to find their tools and behave, and
// nothing that carries a credential. Everything else is left out unless
// the engineer passes it by name (Options.PassEnv).
var allowedEnv = []string{
	// the basics (HOME and TMPDIR are set to the empty ones when confined)
	"PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "SHELL", "SOURCE_DATE_EPOCH",
	// behaviour without a terminal (set by the shell that runs commands)
	"PAGER", "GIT_PAGER", "MANPAGER", "GIT_TERMINAL_PROMPT", "GIT_EDITOR", "EDITOR", "VISUAL", "NO_COLOR", "CI",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
	// certificate bundles: paths
	"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PIP_CERT", "GIT_SSL_CAINFO",
	// Go
	"GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOFLAGS", "GOPROXY", "GONOPROXY", "GOPRIVATE", "GONOSUMDB", "GOSUMDB",
	"GOINSECURE", "GOTOOLCHAIN", "GO111MODULE", "GOEXPERIMENT", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOWORK",
	"CGO_ENABLED", "GODEBUG", "GOTRACEBACK", "GOMAXPROCS", "GOGC", "GOMEMLIMIT",
	// C and C++
	"CC", "CXX", "CPP", "AR", "LD", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "PKG_CONFIG_PATH",
	"LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
	// Python
	"PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONHASHSEED", "PYTHONIOENCODING",
	"PYTHONUTF8", "PYTHONWARNINGS", "PYTHONNOUSERSITE", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_EXE",
	"CONDA_PYTHON_EXE", "CONDA_SHLVL", "PYENV_ROOT", "PYENV_VERSION", "PIPENV_VENV_IN_PROJECT",
	"POETRY_VIRTUALENVS_IN_PROJECT", "UV_CACHE_DIR", "UV_PYTHON_INSTALL_DIR", "PIP_CACHE_DIR", "PIP_NO_INDEX",
	"PIP_DISABLE_PIP_VERSION_CHECK",
	// JavaScript
	"NVM_DIR", "NVM_BIN", "NVM_INC", "NODE_PATH", "NODE_OPTIONS", "npm_config_cache", "NPM_CONFIG_CACHE",
	"npm_config_prefix", "NPM_CONFIG_PREFIX", "VOLTA_HOME", "PNPM_HOME", "BUN_INSTALL", "DENO_DIR", "YARN_CACHE_FOLDER",
	"COREPACK_HOME",
	// Rust
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS", "RUSTDOCFLAGS", "CARGO_TARGET_DIR", "CARGO_NET_OFFLINE",
	"CARGO_INCREMENTAL", "RUST_BACKTRACE",
	// JVM
	"JAVA_HOME", "JDK_HOME", "JRE_HOME", "MAVEN_HOME", "M2_HOME", "GRADLE_HOME", "GRADLE_USER_HOME", "SDKMAN_DIR",
	"ANT_HOME", "KOTLIN_HOME", "SCALA_HOME",
	// Ruby, .NET, PHP
	"GEM_HOME", "GEM_PATH", "RBENV_ROOT", "RBENV_VERSION", "BUNDLE_PATH", "BUNDLE_GEMFILE", "RUBYLIB",
	"DOTNET_ROOT", "DOTNET_CLI_TELEMETRY_OPTOUT", "COMPOSER_HOME",
}

// agentSockets name the engineer's agents and daemons: reaching one is
// acting as the engineer (signing with their key, talking to their
// session). They are never passed, not even by name.
var agentSockets = []string{
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_ASKPASS", "GPG_AGENT_INFO", "GNUPGHOME", "DBUS_SESSION_BUS_ADDRESS",
	"DBUS_SYSTEM_BUS_ADDRESS", "XDG_RUNTIME_DIR", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "KRB5CCNAME",
	"DOCKER_HOST", "CONTAINER_HOST", "KUBECONFIG", "GNOME_KEYRING_CONTROL", "TMUX", "STY", "KITTY_LISTEN_ON",
	"GIT_ASKPASS", "SUDO_ASKPASS",
}

// urlPassword finds a URL that carries a password (scheme://user:pass@).
var urlPassword = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*:[^\s/@]+@`)

// Env is the environment a command gets from environ: the allowed
// variables (LC_* included) and those the engineer passes by name, never
// an agent socket, a name in deny (the model's key and header variables),
// nor a value with a password in a URL.
func Env(environ, pass, deny []string) []string {
	out := make([]string, 0, len(allowedEnv))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || never(name, deny) || urlPassword.MatchString(value) {
			continue
		}
		if slices.Contains(allowedEnv, name) || strings.HasPrefix(name, "LC_") || slices.Contains(pass, name) {
			out = append(out, kv)
		}
	}
	return out
}

// never reports a name no command may see, whatever the engineer passes.
func never(name string, deny []string) bool {
	return slices.Contains(agentSockets, name) || slices.Contains(deny, name) || strings.HasPrefix(name, "SWE_ADEPT_")
}

// CheckPassEnv refuses to pass a variable that is never passed: an agent
// socket, swe-adept's own settings, or a name in deny (the model's key).
func CheckPassEnv(pass, deny []string) error {
	for _, name := range pass {
		switch {
		case name == "" || strings.ContainsAny(name, "= \t\n"):
			return fmt.Errorf("--pass-env %q: want a variable's name", name)
		case slices.Contains(deny, name):
			return fmt.Errorf("--pass-env %s: it holds the model's key or a header value, which never reaches a command", name)
		case never(name, nil):
			return fmt.Errorf("--pass-env %s: it names an agent, a session socket or swe-adept's own settings, which never reach a command", name)
		}
	}
	return nil
}

// setEnv sets name=value in env, replacing any earlier value.
func setEnv(env []string, name, value string) []string {
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	return append(env, name+"="+value)
}
