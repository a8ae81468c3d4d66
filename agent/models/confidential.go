package models

import (
	"net/url"
	"slices"
	"strings"
)

// Confidential is what the model settings hold that no command the agent
// runs may see, whatever the sandbox's flags allow.
type Confidential struct {
	Env    []string // variables holding a key or a header value (api_key_env, "$NAME" headers)
	Values []string // the keys, header values and base-URL passwords themselves, to scrub from output
	Files  []string // the settings file
}

// Confidential lists the settings' secrets for both agents: the key
// variable (OPENAI_API_KEY unless api_key_env names another), every
// header's variable and value (a header's name says nothing of whether its
// value is a secret), and the file the settings came from.
func (s Settings) Confidential() Confidential {
	var c Confidential
	add := func(list *[]string, v string) {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for _, name := range []string{Localization, Resolution} {
		a := s.For(name)
		keyEnv := a.APIKeyEnv
		if keyEnv == "" {
			keyEnv = DefaultKeyEnv
		}
		add(&c.Env, keyEnv)
		add(&c.Values, s.getenv(keyEnv))
		for _, v := range a.Headers {
			if env, ok := strings.CutPrefix(v, "$"); ok {
				add(&c.Env, env)
				v = s.getenv(env)
			}
			add(&c.Values, v)
		}
		if u, err := url.Parse(strings.TrimSpace(a.BaseURL)); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok {
				add(&c.Values, pw)
			}
		}
	}
	add(&c.Files, s.File)
	return c
}
