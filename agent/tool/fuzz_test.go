package tool

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// FuzzRegistryCall feeds the registry whatever a model might write as a
// tool name and arguments: nothing may panic, a malformed call must come
// back as a MalformedError with advice, and a call that runs must have had
// its required argument.
func FuzzRegistryCall(f *testing.F) {
	for _, s := range []struct{ name, args string }{
		{"echo", `{"text":"a"}`}, {"echo", `{"text":""}`}, {"echo", `{"times":2}`}, {"echo", `[1,2]`},
		{"echo", `{"text":3}`}, {"echo", ``}, {"echo", `null`}, {"done", `{}`}, {"nope", `{}`},
		{"echo", `{"text":"a","text":"b"}`}, {"echo", "{\"text\":\"\xff\"}"},
	} {
		f.Add(s.name, s.args)
	}
	reg := testTools()
	f.Fuzz(func(t *testing.T, name, args string) {
		out, err := reg.Call(context.Background(), llm.ToolCall{ID: "f", Name: name, Arguments: args})
		var me *MalformedError
		switch {
		case errors.As(err, &me):
			if strings.TrimSpace(me.Msg) == "" {
				t.Fatalf("malformed call %q %q got no advice", name, args)
			}
		case err != nil:
			if name != "boom" {
				t.Fatalf("call %q %q: unexpected error %v", name, args, err)
			}
		case name == "echo" && out.Text == "":
			t.Fatalf("echo ran without its required text: %q", args)
		}
	})
}
