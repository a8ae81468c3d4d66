package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/eval/batch"
)

func TestQueueSecrets(t *testing.T) {
	repos := t.TempDir()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	token, password, twoLines := write("token", "s3cret\n"), write("password", "pw\n"), write("two", "a\nb\n")
	base := []string{"--queue", "nats://queue:4222", "--repos", repos}
	tests := []struct {
		name                  string
		args                  []string
		env                   map[string]string
		token, user, password string
		err                   string
	}{
		{"none", nil, nil, "", "", "", ""},
		{"token file", []string{"--queue-token-file", token}, nil, "s3cret", "", "", ""},
		{"token from the environment", nil, map[string]string{envQueueToken: "t0k"}, "t0k", "", "", ""},
		{"the file wins over the environment", []string{"--queue-token-file", token}, map[string]string{envQueueToken: "t0k"}, "s3cret", "", "", ""},
		{"user and password file", []string{"--queue-user", "ann", "--queue-password-file", password}, nil, "", "ann", "pw", ""},
		{"user and password from the environment", nil, map[string]string{envQueueUser: "ann", envQueuePassword: "pw"}, "", "ann", "pw", ""},
		{"password without a user", []string{"--queue-password-file", password}, nil, "", "", "", "needs a user"},
		{"missing file", []string{"--queue-token-file", filepath.Join(dir, "nope")}, nil, "", "", "", "--queue-token-file"},
		{"two lines", []string{"--queue-token-file", twoLines}, nil, "", "", "", "on one line"},
		{"negative wait", []string{"--queue-wait", "-1s"}, nil, "", "", "", "--queue-wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, pos, err := parseAs("worker", declareWorkerFlags, append(append([]string{}, base...), tt.args...))
			var c batch.WorkerConfig
			if err == nil {
				c, err = workerConfig(f, pos, func(k string) string { return tt.env[k] })
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if q := c.Queue; q.Token != tt.token || q.User != tt.user || q.Password != tt.password {
				t.Fatalf("token %q, user %q, password %q", q.Token, q.User, q.Password)
			}
		})
	}
}

func TestWarnSecretInURL(t *testing.T) {
	for _, tt := range []struct {
		url  string
		warn bool
	}{
		{"nats://queue:4222", false},
		{"nats://s3cret@queue:4222", true},
		{"nats://a:4222,nats://ann:pw@b:4222", true},
	} {
		var b strings.Builder
		warnSecretInURL(&b, tt.url)
		if got := b.Len() > 0; got != tt.warn || strings.Contains(b.String(), "s3cret") || strings.Contains(b.String(), "pw@") {
			t.Errorf("%s: %q", tt.url, b.String())
		}
	}
}
