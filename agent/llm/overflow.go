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

// countPatterns capture the prompt size a server counted in its overflow
// error: OpenAI ("your messages resulted in N tokens", "(N in the
// messages, M in the completion)"), vLLM ("your request has N input
// tokens"), Anthropic ("prompt is too long: N tokens"), llama.cpp
// (n_prompt_tokens), Gemini ("input token count (N)").
var countPatterns = []*regexp.Regexp{
	regexp.MustCompile(`resulted in (\d+) tokens`),
	regexp.MustCompile(`\((\d+) in the messages`),
	regexp.MustCompile(`request has (\d+) input tokens`),
	regexp.MustCompile(`prompt is too long: (\d+) tokens`),
	regexp.MustCompile(`"n_prompt_tokens"\s*:\s*(\d+)`),
	regexp.MustCompile(`input token count \((\d+)\)`),
}

// completionPattern captures the reply's share a server counted against
// the window (OpenAI and vLLM: "M in the completion").
var completionPattern = regexp.MustCompile(`(\d+) in the completion`)

// overflowWindow is the context window named in an overflow error, or 0.
func overflowWindow(detail string) int { return firstNumber(windowPatterns, detail) }

// overflowCount is the prompt size in tokens the server counted, or 0.
func overflowCount(detail string) int { return firstNumber(countPatterns, detail) }

// overflowCompletion is the reply's share the server counted, or 0.
func overflowCompletion(detail string) int {
	return firstNumber([]*regexp.Regexp{completionPattern}, detail)
}

func firstNumber(patterns []*regexp.Regexp, detail string) int {
	for _, re := range patterns {
		if m := re.FindStringSubmatch(detail); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}
