package resolve

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestHeadTailNamesTheCutLines: the note names exactly the lines that are
// not whole in what is kept, however the output arrives in writes.
func TestHeadTailNamesTheCutLines(t *testing.T) {
	var all strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&all, "line %d\n", i)
	}
	text := all.String()
	note := regexp.MustCompile(`lines (\d+)-(\d+)\) cut`)
	for _, chunk := range []int{1, 7, 4096, len(text)} {
		for _, limit := range []int{100, 1500, 8 << 10} {
			h := newHeadTail(limit)
			for i := 0; i < len(text); i += chunk {
				h.Write([]byte(text[i:min(i+chunk, len(text))]))
			}
			got, cut := h.text()
			m := note.FindStringSubmatch(got)
			if m == nil || cut == 0 {
				t.Fatalf("chunk %d limit %d: no note in %q", chunk, limit, got)
			}
			first, _ := strconv.Atoi(m[1])
			last, _ := strconv.Atoi(m[2])
			head, tail := text[:limit/2], text[len(text)-(limit-limit/2):]
			wantFirst := strings.Count(head, "\n") + 1
			wantLast := 2000 - strings.Count(tail, "\n") + 1
			if strings.HasPrefix(tail, "line ") && text[len(text)-len(tail)-1] == '\n' {
				wantLast-- // the tail starts a whole line: the cut ends before it
			}
			if first != wantFirst || last != wantLast {
				t.Errorf("chunk %d limit %d: note says lines %d-%d, want %d-%d", chunk, limit, first, last, wantFirst, wantLast)
			}
		}
	}
}
