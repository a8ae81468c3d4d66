package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/swe-adept/swe-adept/agent/llm"
	"github.com/swe-adept/swe-adept/agent/llm/providertest"
)

// bigFile is what each read returns: about 8,000 characters.
var bigFile = func() string {
	var b strings.Builder
	for i := 1; b.Len() < 8000; i++ {
		fmt.Fprintf(&b, "row %03d: sku-%d, price %d.00, stock %d\n", i, i*7, i%50, i%13)
	}
	return b.String()
}()

// readsThenSubmit reads the same large file six times, then submits.
func readsThenSubmit() *llm.Script {
	var turns []llm.Turn
	for i := 0; i < 6; i++ {
		turns = append(turns, llm.Turn{Content: "Read the catalogue again.",
			ToolCalls: []llm.ScriptCall{{Name: "bash", Arguments: json.RawMessage(`{"command":"cat catalog.csv"}`)}}})
	}
	return &llm.Script{Turns: append(turns, llm.Turn{ToolCalls: []llm.ScriptCall{{Name: "submit", Arguments: json.RawMessage(`{}`)}}})}
}

func readTools() *Registry {
	type cmd struct {
		Command string `json:"command" description:"the command"`
	}
	bash := New("bash", "run a command", func(_ context.Context, _ cmd) (Output, error) { return Output{Text: bigFile}, nil })
	submit := New("submit", "finish", func(_ context.Context, _ struct{}) (Output, error) { return Output{Text: "done", Stop: true}, nil })
	return NewRegistry(bash, submit)
}

// exchange is one request a server saw: its size and whether it was
// refused as too long.
type exchange struct {
	bytes    int
	overflow bool
}

// TestOverflowRetriesShrink: a model believed to have a large window sits
// behind a server with a small one. Every retry after an overflow is
// strictly smaller than the request before it, and the run goes on; an
// opening the window cannot hold ends the loop with exit_context and
// advice, never by sending the same request again.
func TestOverflowRetriesShrink(t *testing.T) {
	tests := []struct {
		name   string
		family providertest.Family // "" is a server that names no numbers
		window int
		want   Status
	}{
		{"openai names the window and the count", providertest.OpenAIChat, 6000, Submitted},
		{"anthropic", providertest.Anthropic, 6000, Submitted},
		{"llama.cpp's n_ctx and n_prompt_tokens", providertest.LlamaCpp, 6000, Submitted},
		{"vllm", providertest.VLLM, 6000, Submitted},
		{"gemini", providertest.Gemini, 6000, Submitted},
		{"a server that names nothing", "", 6000, Submitted},
		{"an opening larger than the window", providertest.OpenAIChat, 250, ExitTokens},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, log := overflowServer(t, tc.family, tc.window)
			m, err := llm.NewOpenAI(llm.OpenAIConfig{APIKey: "sk-test-abcdefgh", BaseURL: base, Model: "gpt-4o", MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			loop := NewLoop(Config{Agent: "resolve", Model: m, Tools: readTools(), MaxIterations: 12},
				llm.Message{Role: llm.System, Content: "You fix bugs. " + strings.Repeat("Be careful. ", 60)},
				llm.Message{Role: llm.User, Content: "The cart total is wrong."})
			res, err := loop.Run(context.Background())
			got := log()
			refused := 0
			for i, x := range got {
				if !x.overflow {
					continue
				}
				refused++
				if i+1 < len(got) && got[i+1].bytes >= x.bytes {
					t.Errorf("request %d (%d bytes) was refused as too long, and the retry was %d bytes", i, x.bytes, got[i+1].bytes)
				}
			}
			if refused == 0 {
				t.Error("no request overflowed: the test proves nothing")
			}
			if tc.family != "" && tc.want == Submitted && refused != 1 {
				t.Errorf("%d requests refused: what the first refusal said was not learnt at once", refused)
			}
			if res.Status != tc.want {
				t.Fatalf("status %s (%v), want %s", res.Status, err, tc.want)
			}
			if tc.want == ExitTokens {
				var werr *WindowError
				if !errors.As(err, &werr) {
					t.Fatalf("error %v is not a *WindowError", err)
				}
				for _, advice := range []string{"context_window", "num_ctx", "larger window", fmt.Sprint(tc.window)} {
					if !strings.Contains(err.Error(), advice) {
						t.Errorf("the advice lacks %q: %s", advice, err)
					}
				}
			}
		})
	}
}

// overflowServer is a family's strict fake, or a plain server that
// refuses long prompts without naming any number; log lists what it saw.
func overflowServer(t *testing.T, fam providertest.Family, window int) (string, func() []exchange) {
	if fam != "" {
		srv := providertest.New(t, providertest.Config{Family: fam, Window: window,
			Scripts: map[string]*llm.Script{"resolve": readsThenSubmit()}})
		return srv.BaseURL(), func() []exchange {
			var out []exchange
			for _, x := range srv.Received {
				out = append(out, exchange{bytes: x.Bytes, overflow: x.Status == http.StatusBadRequest})
			}
			return out
		}
	}
	var mu sync.Mutex
	var seen []exchange
	turns := readsThenSubmit().Turns
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		over := len(body)/4 > window
		seen = append(seen, exchange{bytes: len(body), overflow: over})
		if over {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"Input is too long for the requested model.","type":"invalid_request_error","code":"context_length_exceeded"}}`)
			return
		}
		turn := turns[0]
		turns = turns[1:]
		c := turn.ToolCalls[0]
		fmt.Fprintf(w, `{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":%q,`+
			`"tool_calls":[{"id":"call_%d","type":"function","function":{"name":%q,"arguments":%q}}]}}],"usage":{"prompt_tokens":%d,"completion_tokens":9}}`,
			turn.Content, len(seen), c.Name, string(c.Arguments), len(body)/4)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() []exchange {
		mu.Lock()
		defer mu.Unlock()
		return append([]exchange(nil), seen...)
	}
}
