package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAzureDeployment: with an API version set, requests go to the
// deployment's path with the version and the api-key header, as Azure
// OpenAI wants them.
func TestAzureDeployment(t *testing.T) {
	var path, version, key, auth, team string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, version, key, auth, team = r.URL.Path, r.URL.Query().Get("api-version"), r.Header.Get("api-key"), r.Header.Get("Authorization"), r.Header.Get("X-Team")
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "hi"}}},
			"usage": map[string]any{"prompt_tokens": 3, "completion_tokens": 1}})
	}))
	defer srv.Close()
	m, err := NewOpenAI(OpenAIConfig{APIKey: testKey, BaseURL: srv.URL, Model: "my-gpt-4.1", AzureAPIVersion: "2024-10-21",
		Headers: map[string]string{"X-Team": "bugs"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Complete(context.Background(), Request{Messages: []Message{{Role: User, Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if path != "/openai/deployments/my-gpt-4.1/chat/completions" || version != "2024-10-21" || key != testKey || auth != "" || team != "bugs" {
		t.Errorf("path %q version %q api-key %q authorization %q team %q", path, version, key, auth, team)
	}
}
