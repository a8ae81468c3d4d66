package sandbox

import (
	"slices"
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "LANG=C.UTF-8", "LC_ALL=C", "GOPATH=/home/e/go", "VIRTUAL_ENV=/home/e/.venv",
		"OPENAI_API_KEY=sk-1", "MY_MODEL_KEY=sk-2", "X_HEADER_VALUE=h", "SSH_AUTH_SOCK=/tmp/a", "SWE_ADEPT_CONFIG=/c.toml",
		"GOPROXY=https://user:token@proxy.corp", "PIP_INDEX_URL=https://pypi.org/simple", "FOO=bar", "MALFORMED",
	}
	tests := []struct {
		name       string
		pass, deny []string
		want       []string
	}{
		{"allow-list", nil, nil, []string{"PATH=/usr/bin", "LANG=C.UTF-8", "LC_ALL=C", "GOPATH=/home/e/go", "VIRTUAL_ENV=/home/e/.venv"}},
		{"passed by name", []string{"FOO", "MY_MODEL_KEY"}, nil,
			[]string{"PATH=/usr/bin", "LANG=C.UTF-8", "LC_ALL=C", "GOPATH=/home/e/go", "VIRTUAL_ENV=/home/e/.venv", "MY_MODEL_KEY=sk-2", "FOO=bar"}},
		{"denied wins", []string{"MY_MODEL_KEY", "SSH_AUTH_SOCK", "SWE_ADEPT_CONFIG"}, []string{"MY_MODEL_KEY", "PATH"},
			[]string{"LANG=C.UTF-8", "LC_ALL=C", "GOPATH=/home/e/go", "VIRTUAL_ENV=/home/e/.venv"}},
		{"a URL with a password is never passed", []string{"GOPROXY"}, nil,
			[]string{"PATH=/usr/bin", "LANG=C.UTF-8", "LC_ALL=C", "GOPATH=/home/e/go", "VIRTUAL_ENV=/home/e/.venv"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Env(environ, tc.pass, tc.deny); !slices.Equal(got, tc.want) {
				t.Errorf("Env = %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestCheckPassEnv(t *testing.T) {
	tests := []struct {
		pass    []string
		deny    []string
		wantErr string
	}{
		{[]string{"DJANGO_SETTINGS_MODULE", "FOO"}, []string{"OPENAI_API_KEY"}, ""},
		{[]string{"OPENAI_API_KEY"}, []string{"OPENAI_API_KEY"}, "model's key"},
		{[]string{"SSH_AUTH_SOCK"}, nil, "agent"},
		{[]string{"SWE_ADEPT_CONFIG"}, nil, "swe-adept's own"},
		{[]string{"A=B"}, nil, "variable's name"},
		{[]string{""}, nil, "variable's name"},
	}
	for _, tc := range tests {
		err := CheckPassEnv(tc.pass, tc.deny)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("CheckPassEnv(%q, %q) = %v, want an error saying %q", tc.pass, tc.deny, err, tc.wantErr)
		}
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]uint64{"1024": 1024, "4K": 4 << 10, "512M": 512 << 20, "512MiB": 512 << 20, "1.5G": 3 << 29, "2g": 2 << 30,
		"1T": 1 << 40, " 8 MB ": 8 << 20}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "-1G", "0", "lots", "1E", "nanG", "99999999T"} {
		if n, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, n)
		}
	}
	for _, n := range []uint64{1 << 30, 512 << 20, 3 << 29, 1000, 4 << 40} {
		if got, err := ParseSize(FormatSize(n)); err != nil || got != n {
			t.Errorf("ParseSize(FormatSize(%d)=%q) = %d, %v", n, FormatSize(n), got, err)
		}
	}
}
