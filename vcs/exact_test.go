package vcs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// End-of-line attributes that make some file come back converted are
// refused up front; attributes that convert nothing are not.
func TestCheckExactConversion(t *testing.T) {
	tests := []struct {
		name    string
		attrs   string
		files   map[string]string // committed before the attributes
		refused []string          // paths the refusal names; none: accepted
	}{
		{"eol=crlf over LF and CRLF files", "* text eol=crlf\n",
			map[string]string{"lf.txt": "x\ny\n", "crlf.txt": "a\r\nb\r\n"}, []string{"lf.txt", "crlf.txt"}},
		{"text=auto over LF files", "* text=auto\n", map[string]string{"lf.txt": "x\ny\n"}, nil},
		{"eol=lf over LF files", "*.txt text eol=lf\n", map[string]string{"lf.txt": "x\ny\n"}, nil},
		{"text over a committed CRLF file", "*.txt text\n", map[string]string{"crlf.txt": "a\r\nb\r\n"}, []string{"crlf.txt"}},
		{"no attributes", "", map[string]string{"crlf.txt": "a\r\nb\r\n"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t)
			for p, c := range tc.files {
				write(t, dir, p, c)
			}
			gitT(t, dir, "add", "-A")
			gitT(t, dir, "commit", "-q", "-m", "files")
			if tc.attrs != "" {
				if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte(tc.attrs), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := openT(t, dir).checkExact(context.Background())
			if len(tc.refused) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInexact) {
				t.Fatalf("err = %v, want ErrInexact", err)
			}
			for _, p := range tc.refused {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("the refusal does not name %s: %v", p, err)
				}
			}
		})
	}
}
