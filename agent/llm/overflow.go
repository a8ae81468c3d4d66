package llm

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// overflowPhrases are how servers say a prompt outgrew the context window:
// OpenAI and vLLM ("maximum context length"), Anthropic ("prompt is too
// long"), llama.cpp ("exceeds the available context size"), Gemini ("input
// token count ... exceeds the maximum"), DeepSeek (OpenAI's wording).
var overflowPhrases = []string{
	"maximum context length",
	"prompt is too long",
	"exceeds the available context size",
	"context size has been exceeded",
	"exceeds the maximum number of tokens",
	"context window",
	"too many tokens",
}

// overflowError reports whether a failed call was a context overflow.
func overflowError(status int, detail, code string) bool {
	if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
		return false
	}
	if code == "context_length_exceeded" || strings.Contains(detail, "exceed_context_size_error") {
		return true
	}
	low := strings.ToLower(detail)
	for _, p := range overflowPhrases {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

// windowPatterns capture the window a server names in its overflow error.
var windowPatterns = []*regexp.Regexp{
	regexp.MustCompile(`maximum context length is (\d+)`),
	regexp.MustCompile(`tokens > (\d+) maximum`),
	regexp.MustCompile(`"n_ctx"\s*:\s*(\d+)`),
	regexp.MustCompile(`maximum number of tokens allowed \((\d+)\)`),
	regexp.MustCompile(`context size \((\d+)\)`),
}

// overflowWindow is the context window named in an overflow error, or 0.
func overflowWindow(detail string) int {
	for _, re := range windowPatterns {
		if m := re.FindStringSubmatch(detail); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}
