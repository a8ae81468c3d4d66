package llm

import (
	"context"
	"testing"
)

// BenchmarkOpenAIComplete measures the client's own cost per call (mapping,
// JSON, HTTP over loopback) against a local chat-completions server.
func BenchmarkOpenAIComplete(b *testing.B) {
	reply := `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{\"query\":\"x\"}"}}]}`
	srv := newChatServer(b, ok(completion(reply, 1000, 20)))
	m := srv.client(b, "gpt-4o", 1)
	req := conversation()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Complete(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScriptedComplete measures one scripted turn, which the demo and
// the end-to-end tests pay for on every step.
func BenchmarkScriptedComplete(b *testing.B) {
	s, err := LoadScript(scriptPath("localize.json"))
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Messages: conversation().Messages, Tools: localizerTools}
	b.ReportAllocs()
	for b.Loop() {
		m := NewScripted(&Script{Model: s.Model, Turns: s.Turns[:1]})
		if _, err := m.Complete(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
