package index

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// scriptConfig is what the root's tsconfig.json (or jsconfig.json) says
// about bare module specifiers: compilerOptions.baseUrl and paths. Paths
// are slash-separated and relative to the root. "extends" is not
// followed.
type scriptConfig struct {
	BaseURL string       `json:"base_url,omitempty"`
	HasBase bool         `json:"has_base,omitempty"`
	Rules   []scriptRule `json:"rules,omitempty"`
}

// scriptRule is one "paths" entry: "@app/*" -> ["src/app/*"].
type scriptRule struct {
	Pattern string   `json:"pattern"`
	Targets []string `json:"targets"`
}

// readScriptConfig reads the root's tsconfig.json, else jsconfig.json, and
// encodes what resolution needs as a string ("" if none), which is also
// how stored links know the config they were made with.
func readScriptConfig(root string) string {
	for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue
		}
		c, ok := decodeTSConfig(data)
		if !ok {
			return ""
		}
		out, err := json.Marshal(c)
		if err != nil {
			return ""
		}
		return string(out)
	}
	return ""
}

// decodeTSConfig reads the module paths out of a tsconfig.json, which is
// JSON with comments and trailing commas.
func decodeTSConfig(data []byte) (scriptConfig, bool) {
	var raw struct {
		CompilerOptions struct {
			BaseURL *string             `json:"baseUrl"`
			Paths   map[string][]string `json:"paths"`
		} `json:"compilerOptions"`
	}
	if err := json.Unmarshal(stripJSONC(data), &raw); err != nil {
		return scriptConfig{}, false
	}
	var c scriptConfig
	base := "."
	if b := raw.CompilerOptions.BaseURL; b != nil {
		base = path.Clean(strings.TrimPrefix(*b, "./"))
		c.BaseURL, c.HasBase = base, true
	}
	for pat, targets := range raw.CompilerOptions.Paths {
		r := scriptRule{Pattern: pat}
		for _, t := range targets {
			r.Targets = append(r.Targets, path.Join(base, t))
		}
		c.Rules = append(c.Rules, r)
	}
	// The longest prefix wins, as in TypeScript; sorting keeps the
	// encoding stable too.
	sortRules(c.Rules)
	return c, c.HasBase || len(c.Rules) > 0
}

func sortRules(rs []scriptRule) {
	prefix := func(r scriptRule) int {
		if i := strings.IndexByte(r.Pattern, '*'); i >= 0 {
			return i
		}
		return len(r.Pattern) + 1 // exact patterns first
	}
	slices.SortFunc(rs, func(a, b scriptRule) int {
		if pa, pb := prefix(a), prefix(b); pa != pb {
			return pb - pa
		}
		return strings.Compare(a.Pattern, b.Pattern)
	})
}

func parseScriptConfig(enc string) *scriptConfig {
	if enc == "" {
		return nil
	}
	var c scriptConfig
	if json.Unmarshal([]byte(enc), &c) != nil {
		return nil
	}
	return &c
}

// candidates are the root-relative paths a bare specifier may name,
// in the order TypeScript tries them.
func (c *scriptConfig) candidates(spec string) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, r := range c.Rules {
		star, ok := matchPattern(r.Pattern, spec)
		if !ok {
			continue
		}
		for _, t := range r.Targets {
			out = append(out, strings.Replace(t, "*", star, 1))
		}
	}
	if c.HasBase {
		out = append(out, path.Join(c.BaseURL, spec))
	}
	return out
}

// matchPattern matches a paths pattern with at most one "*", giving what
// the star stood for.
func matchPattern(pat, spec string) (string, bool) {
	pre, suf, wild := strings.Cut(pat, "*")
	if !wild {
		return "", pat == spec
	}
	if len(spec) < len(pre)+len(suf) || !strings.HasPrefix(spec, pre) || !strings.HasSuffix(spec, suf) {
		return "", false
	}
	return spec[len(pre) : len(spec)-len(suf)], true
}

// stripJSONC removes // and /* */ comments outside strings, and commas
// before a closing bracket, so encoding/json reads a tsconfig.
func stripJSONC(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(data)-1)
			out = append(out, data[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			if i < len(data) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := strings.Index(string(data[i+2:]), "*/")
			if end < 0 {
				return out
			}
			i += end + 3
		case c == ']' || c == '}':
			k := len(out) - 1
			for k >= 0 && (out[k] == ' ' || out[k] == '\n' || out[k] == '\t' || out[k] == '\r') {
				k--
			}
			if k >= 0 && out[k] == ',' {
				out = append(out[:k], out[k+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}
