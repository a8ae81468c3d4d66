package tool

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/swe-adept/swe-adept/agent/event"
	"github.com/swe-adept/swe-adept/agent/llm"
)

// turns is a model that answers with the given assistant turns in order.
type turns []llm.Message

func (t *turns) Name() string { return "fake" }

func (t *turns) Complete(ctx context.Context, _ llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	if len(*t) == 0 {
		return llm.Response{}, errors.New("fake model: out of turns")
	}
	m := (*t)[0]
	*t = (*t)[1:]
	m.Role = llm.Assistant
	return llm.Response{Message: m, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5, Cost: 0.01, Priced: true}}, nil
}

func call(name, args string) llm.Message {
	return llm.Message{ToolCalls: []llm.ToolCall{{ID: "c", Name: name, Arguments: args}}}
}

type echoArgs struct {
	Text  string `json:"text" description:"what to echo"`
	Times int    `json:"times,omitempty" description:"how often"`
}

func testTools() *Registry {
	echo := New("echo", "echo text", func(_ context.Context, a echoArgs) (Output, error) {
		return Output{Text: strings.Repeat(a.Text, max(a.Times, 1))}, nil
	})
	done := New("done", "finish", func(_ context.Context, _ struct{}) (Output, error) {
		return Output{Text: "bye", Stop: true}, nil
	})
	boom := New("boom", "fails", func(_ context.Context, _ struct{}) (Output, error) {
		return Output{}, errors.New("disk on fire")
	})
	return NewRegistry(echo, done, boom)
}

func TestLoop(t *testing.T) {
	tests := []struct {
		name      string
		turns     turns
		cfg       Config
		want      Status
		wantIters int
		wantInLog string // a tool message must contain this
	}{
		{"stop tool ends the loop", turns{call("echo", `{"text":"a"}`), call("done", "")}, Config{}, Submitted, 2, "a"},
		{"unknown tool is repaired", turns{call("nope", `{}`), call("done", "{}")}, Config{}, Submitted, 2, `there is no tool "nope"`},
		{"invalid json is repaired", turns{call("echo", `{text:`), call("done", "{}")}, Config{}, Submitted, 2, "not valid JSON"},
		{"missing argument is repaired", turns{call("echo", `{"times":2}`), call("done", "{}")}, Config{}, Submitted, 2, "echo needs text"},
		{"wrong type is repaired", turns{call("echo", `{"text":3}`), call("done", "{}")}, Config{}, Submitted, 2, "do not fit echo"},
		{"tool error is an observation", turns{call("boom", ``), call("done", "{}")}, Config{}, Submitted, 2, "boom failed: disk on fire"},
		{"repairs run out", turns{call("x", ""), call("x", ""), call("x", ""), call("x", "")}, Config{}, ExitFormat, 4, "no tool"},
		{"prose instead of a tool", turns{{Content: "hm"}, {Content: "hm"}, {Content: "hm"}, {Content: "hm"}}, Config{}, ExitNoTool, 4, ""},
		{"iteration limit", turns{call("echo", `{"text":"a"}`), call("echo", `{"text":"b"}`)}, Config{MaxIterations: 2}, ExitIterations, 2, "b"},
		{"cost limit", turns{call("echo", `{"text":"a"}`), call("echo", `{"text":"b"}`)}, Config{MaxCost: 0.015}, ExitCost, 2, "b"},
		{"token limit", turns{call("echo", `{"text":"a"}`)}, Config{MaxTokens: 15}, ExitTokens, 1, "a"},
		{"loop guard", turns{call("echo", `{"text":"a"}`), call("echo", `{ "text" : "a" }`), call("done", "")}, Config{Dedupe: "try another query"}, Submitted, 3, "Already seen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Agent, cfg.Model, cfg.Tools = event.Localizer, &tt.turns, testTools()
			l := NewLoop(cfg, llm.Message{Role: llm.User, Content: "go"})
			res, err := l.Run(context.Background())
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Status != tt.want || res.Iterations != tt.wantIters {
				t.Errorf("status %s after %d iterations, want %s after %d", res.Status, res.Iterations, tt.want, tt.wantIters)
			}
			if tt.wantInLog != "" && !toolSaid(l.Messages, tt.wantInLog) {
				t.Errorf("no tool message contains %q: %+v", tt.wantInLog, l.Messages)
			}
		})
	}
}

func toolSaid(msgs []llm.Message, s string) bool {
	for _, m := range msgs {
		if m.Role == llm.ToolRole && strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}

func TestLoopEventsAndNotes(t *testing.T) {
	bus := event.NewBus(nil)
	ch := bus.Subscribe()
	gate := event.NewGate()
	gate.Note("look at parser.py first")
	ts := turns{call("echo", `{"text":"a"}`), call("done", "")}
	l := NewLoop(Config{Agent: event.Resolver, Model: &ts, Tools: testTools(), Bus: bus, Gate: gate})
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	bus.Close()
	var types []string
	for e := range ch {
		types = append(types, string(e.Type))
	}
	want := "message model_call model_reply tool_call tool_result model_call model_reply tool_call tool_result"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(l.Messages[0].Content, "look at parser.py first") {
		t.Errorf("the note was not given to the model: %+v", l.Messages[0])
	}
}

func TestLoopCancelWhilePaused(t *testing.T) {
	gate := event.NewGate()
	gate.Pause()
	ctx, cancel := context.WithCancel(context.Background())
	ts := turns{call("echo", `{"text":"a"}`)}
	l := NewLoop(Config{Model: &ts, Tools: testTools(), Gate: gate})
	done := make(chan Result)
	go func() { r, _ := l.Run(ctx); done <- r }()
	cancel()
	if r := <-done; r.Status != Cancelled {
		t.Errorf("status %s, want cancelled", r.Status)
	}
}

func TestSchemaRequired(t *testing.T) {
	s := testTools().Schemas()[0]
	b := s.Parameters
	if b == nil || s.Name != "echo" {
		t.Fatalf("schema %+v", s)
	}
	tl := testTools().tools["echo"]
	if len(tl.required) != 1 || tl.required[0] != "text" {
		t.Errorf("required = %v, want [text]", tl.required)
	}
}

// A Watch sees each call start and end, in order around the call, and an
// error from its end stops the loop after the call's answer is recorded.
func TestLoopWatch(t *testing.T) {
	var seen []string
	m := turns{call("echo", `{"text":"a"}`), call("echo", `{"text":"b"}`), call("done", "")}
	cfg := Config{Agent: event.Resolver, Model: &m, Tools: testTools(),
		Watch: func(_ context.Context, c llm.ToolCall) func(context.Context) error {
			seen = append(seen, "start "+c.Arguments)
			return func(context.Context) error {
				seen = append(seen, "end "+c.Arguments)
				if strings.Contains(c.Arguments, `"b"`) {
					return errors.New("the workspace changed under the call")
				}
				return nil
			}
		}}
	l := NewLoop(cfg, llm.Message{Role: llm.User, Content: "go"})
	res, err := l.Run(context.Background())
	var gerr *GuardError
	if !errors.As(err, &gerr) || res.Status != ExitError {
		t.Fatalf("Run = %v, %v; want ExitError with the watch's error", res.Status, err)
	}
	want := []string{`start {"text":"a"}`, `end {"text":"a"}`, `start {"text":"b"}`, `end {"text":"b"}`}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("watch saw %q, want %q", seen, want)
	}
	if !toolSaid(l.Messages, "b") {
		t.Error("the stopped call's answer was not recorded")
	}
}
