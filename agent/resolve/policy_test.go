package resolve

import (
	"regexp"
	"strings"
	"testing"
)

func TestPermissionsCheck(t *testing.T) {
	const ws = "/work/repo"
	tests := []struct {
		cmd    string
		mode   ApprovalMode
		want   Verdict
		reason string // a refusal must contain this
	}{
		// allow-listed: run in every mode
		{"python3 -m pytest tests/test_x.py -q", ModeAsk, Allow, ""},
		{"python -m unittest discover -s tests", ModeDeny, Allow, ""},
		{"go test ./...", ModeAsk, Allow, ""},
		{"grep -rn parse_header src | head -20", ModeAsk, Allow, ""},
		{"rg -n 'def parse' --type py", ModeAsk, Allow, ""},
		{"find . -name '*.py' -not -path './.git/*'", ModeAsk, Allow, ""},
		{"sed -n '10,40p' pkg/mod.py", ModeAsk, Allow, ""},
		{"cat pkg/a.py && ls -la", ModeAsk, Allow, ""},
		{"python3 reproduce.py", ModeAsk, Allow, ""},
		{"cd pkg && python3 ../reproduce.py", ModeAsk, Allow, ""},
		{"git diff HEAD~1 -- pkg", ModeAsk, Allow, ""},
		{"python3 /work/repo/reproduce.py 2>&1 | tail -5", ModeAsk, Allow, ""},
		{"python3 -m pytest -q > /dev/null 2>&1; echo $?", ModeAsk, Allow, ""},
		{"FOO=1 timeout 20 python3 -m pytest", ModeAsk, Allow, ""},
		{"cat > reproduce.py <<'EOF'\nfrom calc import div\nprint(div(1, 2) / 2)\nEOF", ModeAsk, Allow, ""},
		{"python3 - <<EOF\nprint(3 / 4)\nEOF", ModeAuto, Allow, ""},
		{"python3 - <<EOF\nopen('/etc/passwd')\nEOF", ModeAuto, Refuse, "/etc/passwd"},
		{"cat <<-END > x.py\n\timport urllib\n\tEND\ncurl x", ModeAuto, Refuse, "curl"},
		// not allow-listed: the mode decides
		{"python3 -c 'print(1/2)'", ModeAsk, Ask, ""},
		{"python3 -c 'print(1/2)'", ModeAuto, Allow, ""},
		{"python3 -c 'print(1/2)'", ModeDeny, Refuse, "allow-list"},
		{"rm -rf build", ModeAsk, Ask, ""},
		{"sed -i 's/a/b/' x.py", ModeAsk, Ask, ""},
		{"find . -name '*.pyc' -delete", ModeAsk, Ask, ""},
		{"make test", ModeAsk, Ask, ""},
		{"cat x | python3 -c 'import sys'", ModeAsk, Ask, ""},
		// outside the workspace: refused in every mode
		{"curl https://example.com", ModeAuto, Refuse, "curl reaches outside"},
		{"python3 -c \"import os; os.system('curl x')\"", ModeAuto, Refuse, "curl"},
		{"echo $(wget -qO- http://x)", ModeAuto, Refuse, "wget"},
		{"ssh host ls", ModeAuto, Refuse, "ssh"},
		{"scp a host:b", ModeAuto, Refuse, "scp"},
		{"nc -l 8080", ModeAuto, Refuse, "nc reaches"},
		{"sudo rm x", ModeAuto, Refuse, "sudo"},
		{"su -c id", ModeAuto, Refuse, "su reaches"},
		{"pip install requests", ModeAuto, Refuse, "installs from the network"},
		{"python3 -m pip install -e .", ModeAuto, Refuse, "installs from the network"},
		{"pip install --no-index -e .", ModeAuto, Allow, ""},
		{"git push origin main", ModeAuto, Refuse, "git push reaches"},
		{"git remote -v", ModeAuto, Refuse, "git remote"},
		{"git -C . fetch", ModeAuto, Refuse, "git fetch"},
		{"git checkout -b x", ModeAuto, Refuse, "hypothesis_git"},
		{"git stash", ModeAuto, Refuse, "hypothesis_git"},
		{"git commit -am fix", ModeAuto, Refuse, "hypothesis_git"},
		{"rm -rf /", ModeAuto, Refuse, "outside the workspace"},
		{"cat /etc/passwd", ModeAuto, Refuse, "/etc/passwd is outside"},
		{"python3 -c \"open('/etc/shadow').read()\"", ModeAuto, Refuse, "/etc/shadow"},
		{"ls ~", ModeAuto, Refuse, "home directory"},
		{"cat ~/.ssh/id_rsa", ModeAuto, Refuse, "home directory"},
		{"echo $HOME", ModeAuto, Refuse, "$HOME"},
		{"cat ../other/secret", ModeAuto, Refuse, "climbs out"},
		{"cd .. && ls", ModeAuto, Refuse, "climbs out"},
		{"cd", ModeAuto, Refuse, "home directory"},
		{"pytest --basetemp=/var/x", ModeAuto, Refuse, "/var/x is outside"},
		{"rm -rf .git", ModeAuto, Refuse, ".git is managed"},
		{"echo x > .git/HEAD", ModeAuto, Refuse, ".git is managed"},
		{"kill -9 -1", ModeAuto, Refuse, "process group"},
		{"", ModeAuto, Refuse, "empty"},
		// interactive programs: refused with a hint
		{"vim pkg/a.py", ModeAuto, Refuse, "str_replace_editor"},
		{"nano a.py", ModeAuto, Refuse, "str_replace_editor"},
		{"less a.py", ModeAuto, Refuse, "interactive terminal"},
		{"git log | more", ModeAuto, Refuse, "interactive terminal"},
		{"top", ModeAuto, Refuse, "interactive terminal"},
		{"python3", ModeAuto, Refuse, "without a script"},
		{"python", ModeAuto, Refuse, "without a script"},
		{"ipython", ModeAuto, Refuse, "without a script"},
		{"tail -f log.txt", ModeAuto, Refuse, "never ends"},
		{"git add -p", ModeAuto, Refuse, "keyboard"},
		{"git rebase -i HEAD~2", ModeAuto, Refuse, "hypothesis_git"},
		{"bash", ModeAuto, Refuse, "keyboard"},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode)+" "+tt.cmd, func(t *testing.T) {
			got := Permissions{Mode: tt.mode, Workdir: ws}.Check(tt.cmd)
			if got.Verdict != tt.want {
				t.Fatalf("Check(%q) = %s (%s), want %s", tt.cmd, got.Verdict, got.Reason, tt.want)
			}
			if !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("reason %q, want it to contain %q", got.Reason, tt.reason)
			}
		})
	}
}

func TestPermissionsExtraAllow(t *testing.T) {
	p := Permissions{Mode: ModeAsk, Workdir: "/w", Allow: []string{"make test"}}
	if v := p.Check("make test ARGS=-v").Verdict; v != Allow {
		t.Errorf("make test = %s, want allow", v)
	}
	if v := p.Check("make install").Verdict; v != Ask {
		t.Errorf("make install = %s, want ask", v)
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"ask", "auto", "deny"} {
		if _, err := ParseApprovalMode(s); err != nil {
			t.Errorf("ParseMode(%q): %v", s, err)
		}
	}
	if _, err := ParseApprovalMode("yes"); err == nil {
		t.Error("ParseMode(yes) succeeded")
	}
}

var (
	etcWord  = regexp.MustCompile(`(^|[ ;&|()'"])/etc/passwd([ ;&|()'"]|$)`)
	curlWord = regexp.MustCompile(`(^|[ ;&|()'"])curl([ ;&|()'"]|$)`)
)

// FuzzPermissions checks that the policy never panics and never lets a
// command naming /etc or the network through, however it is written.
func FuzzPermissions(f *testing.F) {
	for _, s := range []string{"ls", "cat /etc/passwd", "echo 'a;b' | curl x", "python3 -c \"x/2\"", "cd a && ../b", "$(wget)", "a\\ b 'c\"d'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, m := range []ApprovalMode{ModeAsk, ModeAuto, ModeDeny} {
			d := Permissions{Mode: m, Workdir: "/w"}.Check(cmd)
			if d.Verdict != Refuse && (etcWord.MatchString(cmd) || curlWord.MatchString(cmd)) {
				t.Fatalf("Check(%q) in %s = %s", cmd, m, d.Verdict)
			}
		}
	})
}

// TestUnconfinedAsksForEverything: where the shell cannot be confined and
// the engineer did not choose the approval mode, no command runs without
// the engineer: in ask mode every one asks, allow-listed or not; where
// nobody can answer, every one is refused, saying why. Prefixes the
// engineer allowed still run.
func TestUnconfinedAsksForEverything(t *testing.T) {
	why := "the shell cannot be confined on this system"
	tests := []struct {
		mode ApprovalMode
		cmd  string
		want Verdict
	}{
		{ModeAsk, "python3 -m pytest -q", Ask},
		{ModeAsk, "ls", Ask},
		{ModeAsk, "make test", Allow},
		{ModeAsk, "make test && rm -rf x", Ask},
		{ModeAuto, "python3 -m pytest -q", Refuse},
		{ModeAuto, "cat README", Refuse},
		{ModeAuto, "make test", Allow},
		{ModeDeny, "ls", Refuse},
	}
	for _, tc := range tests {
		p := Permissions{Mode: tc.mode, Workdir: "/w", Allow: []string{"make test"}, Unconfined: why}
		d := p.Check(tc.cmd)
		if d.Verdict != tc.want {
			t.Errorf("%s %q: %s (%s), want %s", tc.mode, tc.cmd, d.Verdict, d.Reason, tc.want)
		}
		if d.Verdict != Allow && !strings.Contains(d.Reason, why) {
			t.Errorf("%s %q: the reason %q does not say the shell is not confined", tc.mode, tc.cmd, d.Reason)
		}
	}
}
