package export

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Action renders a tool call as the command line an SWE-agent trajectory
// shows: `find_code_def --definition_name parse`. A bash call is its
// command; a "command" argument (the editor's and the hypothesis tools'
// sub-command) comes first as a word; other arguments follow as --name
// value in the order the model wrote them. Arguments that are not a JSON
// object are appended as they came.
func Action(name, args string) string {
	args = strings.TrimSpace(args)
	fields, ok := orderedObject(args)
	if !ok {
		if args == "" || args == "{}" {
			return name
		}
		return name + " " + args
	}
	if name == "bash" {
		if c, ok := fields.get("command"); ok {
			if s, ok := asString(c); ok {
				return s
			}
		}
	}
	words := []string{name}
	if c, ok := fields.get("command"); ok {
		if s, ok := asString(c); ok {
			words = append(words, quote(s))
		}
	}
	for _, f := range fields {
		if f.key == "command" {
			if _, ok := asString(f.val); ok {
				continue
			}
		}
		if vals, ok := render(f.val); ok {
			words = append(words, "--"+f.key)
			words = append(words, vals...)
		}
	}
	return strings.Join(words, " ")
}

type field struct {
	key string
	val json.RawMessage
}

type fieldList []field

func (l fieldList) get(k string) (json.RawMessage, bool) {
	for _, f := range l {
		if f.key == k {
			return f.val, true
		}
	}
	return nil, false
}

// orderedObject reads a JSON object keeping its keys' order.
func orderedObject(s string) (fieldList, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out fieldList
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, field{k, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // trailing data
	}
	return out, true
}

func asString(v json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// render is a value's words: a string quoted for a shell, a list as its
// items, anything else as compact JSON. Null renders to nothing.
func render(v json.RawMessage) ([]string, bool) {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0 || string(v) == "null":
		return nil, false
	case v[0] == '"':
		s, _ := asString(v)
		return []string{quote(s)}, true
	case v[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return []string{quote(string(v))}, true
		}
		var out []string
		for _, it := range items {
			if w, ok := render(it); ok {
				out = append(out, w...)
			}
		}
		return out, true
	case v[0] == '{':
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			return []string{quote(string(v))}, true
		}
		return []string{quote(buf.String())}, true
	}
	return []string{string(v)}, true
}

var bare = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// quote makes s one shell word: bare when safe, else single-quoted.
func quote(s string) string {
	if bare.MatchString(s) {
		return s
	}
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
