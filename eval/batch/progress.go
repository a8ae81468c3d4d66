package batch

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress reports a batch on stderr: a bar with an ETA redrawn in place
// on a terminal, one plain line per finished instance otherwise.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	now      func() time.Time
	start    time.Time
	total    int
	done     int // finished before this invocation plus this one's
	fresh    int // finished by this invocation, for the ETA
	running  map[string]bool
	statuses map[string]int
}

func newProgress(w io.Writer, tty bool, total, already int, now func() time.Time) *progress {
	p := &progress{w: w, tty: tty, now: now, start: now(), total: total, done: already,
		running: map[string]bool{}, statuses: map[string]int{}}
	if w != nil && already > 0 {
		p.line(fmt.Sprintf("resuming: %d of %d instances already finished", already, total))
	}
	return p
}

func (p *progress) started(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[id] = true
	p.draw()
}

func (p *progress) abandoned(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, id)
	p.draw()
}

func (p *progress) finished(rec Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, rec.InstanceID)
	p.done++
	p.fresh++
	p.statuses[rec.Status]++
	if !p.tty {
		msg := ""
		if rec.Message != "" && rec.Status != "submitted" {
			msg = ": " + firstLine(rec.Message)
		}
		p.line(fmt.Sprintf("[%d/%d] %s %s in %.1fs%s%s", p.done, p.total, rec.InstanceID, rec.Status, rec.Seconds, msg, p.eta()))
		return
	}
	p.draw()
}

// close ends the bar's line.
func (p *progress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.tty {
		p.draw()
		fmt.Fprintln(p.w)
	}
}

// draw redraws the bar; a no-op off a terminal.
func (p *progress) draw() {
	if p.w == nil || !p.tty {
		return
	}
	const width = 24
	filled := 0
	if p.total > 0 {
		filled = width * p.done / p.total
	}
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	var st []string
	for _, s := range sortedStatuses(p.statuses) {
		st = append(st, fmt.Sprintf("%s %d", s, p.statuses[s]))
	}
	line := fmt.Sprintf("%s %d/%d · %d running", bar, p.done, p.total, len(p.running))
	if len(st) > 0 {
		line += " · " + strings.Join(st, ", ")
	}
	fmt.Fprintf(p.w, "\r\033[K%s%s", line, p.eta())
}

// event prints one line about the batch (a fault, a wait) above the bar.
func (p *progress) event(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "%s  %s\n", p.now().Format("15:04:05"), visible(msg))
	p.draw()
}

func (p *progress) line(s string) {
	if p.w != nil {
		fmt.Fprintln(p.w, s)
	}
}

// eta projects this invocation's pace over what is left.
func (p *progress) eta() string {
	left := p.total - p.done
	if p.fresh == 0 || left <= 0 {
		return ""
	}
	per := p.now().Sub(p.start) / time.Duration(p.fresh)
	return " · ETA " + (per * time.Duration(left)).Round(time.Second).String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// visible keeps a line of text from a file, a repository or a server from
// driving the terminal: control characters become U+FFFD.
func visible(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0 {
			return '\uFFFD'
		}
		return r
	}, s)
}
