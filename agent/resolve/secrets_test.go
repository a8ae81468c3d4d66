package resolve

import (
	"slices"
	"strings"
	"testing"
)

func TestSecretValues(t *testing.T) {
	env := []string{
		"DATABASE_URL=postgres://app:db-password-123@db/app", "MYSQL_PWD=mysql-pass-1", "AZURE_OPENAI_KEY=azure-key-123",
		"HF_AUTH=hf-auth-value-1", "GITHUB_TOKEN=ghp_abcdefgh", "PWD=/home/engineer/project", "OLDPWD=/home/engineer",
		"GIT_AUTHOR_NAME=Jane Engineer", "SHORT_KEY=abc", "PIP_INDEX_URL=https://user:pip-secret@pypi.corp/simple",
	}
	got := SecretValues(env)
	for _, want := range []string{"db-password-123", "mysql-pass-1", "azure-key-123", "hf-auth-value-1", "ghp_abcdefgh", "pip-secret"} {
		if !slices.Contains(got, want) {
			t.Errorf("SecretValues misses %q: %q", want, got)
		}
	}
	for _, not := range []string{"/home/engineer/project", "/home/engineer", "Jane Engineer", "abc"} {
		if slices.Contains(got, not) {
			t.Errorf("SecretValues hides %q, which is no secret", not)
		}
	}
}

func TestCommandEnv(t *testing.T) {
	env := []string{"PATH=/bin", "OPENAI_API_KEY=sk-1", "MY_KEY=k", "FOO=1", "PAGER=less", "GIT_DIR=/elsewhere/.git"}
	got := CommandEnv(env, []string{"FOO", "MY_KEY"}, []string{"MY_KEY"})
	joined := strings.Join(got, "\n")
	for _, want := range []string{"PATH=/bin", "FOO=1", "PAGER=cat", "TERM=dumb"} {
		if !slices.Contains(got, want) {
			t.Errorf("CommandEnv lacks %s:\n%s", want, joined)
		}
	}
	for _, not := range []string{"OPENAI_API_KEY", "MY_KEY", "PAGER=less", "GIT_DIR"} {
		if strings.Contains(joined, not) {
			t.Errorf("CommandEnv passes %s:\n%s", not, joined)
		}
	}
}
