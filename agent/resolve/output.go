package resolve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// headTail keeps the start and the end of a stream and counts the rest,
// in memory bounded by its limit whatever the stream's length.
type headTail struct {
	headCap, tailCap int
	head, tail       []byte
	total            int64
	newlines         int  // in everything written
	beforeTail       byte // the byte before the kept tail, once trimmed
}

func newHeadTail(limit int) *headTail {
	return &headTail{headCap: limit / 2, tailCap: limit - limit/2}
}

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	h.newlines += bytes.Count(p, []byte{'\n'})
	if room := h.headCap - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	h.tail = append(h.tail, p...)
	if len(h.tail) > 2*h.tailCap { // trim now and then, not at every write
		h.beforeTail = h.tail[len(h.tail)-h.tailCap-1]
		h.tail = h.tail[:copy(h.tail, h.tail[len(h.tail)-h.tailCap:])]
	}
	return n, nil
}

// text is what was kept, with a note where the middle was cut saying
// which lines it held and how to print them, and how many bytes were cut.
func (h *headTail) text() (string, int) {
	tail, before := h.tail, h.beforeTail
	if len(tail) > h.tailCap {
		before = tail[len(tail)-h.tailCap-1]
		tail = tail[len(tail)-h.tailCap:]
	}
	cut := int(h.total) - len(h.head) - len(tail)
	if cut <= 0 {
		return printable(string(h.head) + string(tail)), 0
	}
	// Lines are counted as the model will number them: the cut starts on
	// the line the head ends in, and ends on the one the tail starts in.
	first := bytes.Count(h.head, []byte{'\n'}) + 1
	cutNL := h.newlines - (first - 1) - bytes.Count(tail, []byte{'\n'})
	last := first + cutNL
	if before == '\n' {
		last--
	}
	last = max(last, first)
	note := fmt.Sprintf("\n[... %d bytes (lines %d-%d) cut from the middle of the output; %s ...]\n", cut, first, last, paging(first, last, false))
	return printable(string(h.head) + note + string(tail)), cut
}

// drainGrace is how long output is still read once the command's process
// group is gone: what is left in the pipe comes at once; a writer still
// holding it after this escaped the group (unconfined commands only).
const drainGrace = 2 * time.Second

// outputPipe reads a command's output as it comes into a headTail.
type outputPipe struct {
	r, w *os.File
	buf  *headTail
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func newOutputPipe(limit int) (*outputPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("bash: output pipe: %w", err)
	}
	return &outputPipe{r: r, w: w, buf: newHeadTail(limit), done: make(chan struct{})}, nil
}

// start reads in the background; the command holds the write end, which
// the caller closes once the command has started.
func (o *outputPipe) start() {
	go func() {
		defer close(o.done)
		_, err := io.Copy(o.buf, o.r)
		o.mu.Lock()
		o.err = err
		o.mu.Unlock()
	}()
}

// finish waits for the end of the output, at most drainGrace, and returns
// what was kept. Only a writer outside the command's group can hold it
// open so long; what it writes later is not read.
func (o *outputPipe) finish() (string, int, error) {
	o.r.SetReadDeadline(time.Now().Add(drainGrace))
	<-o.done
	o.r.Close()
	o.mu.Lock()
	err := o.err
	o.mu.Unlock()
	text, cut := o.buf.text()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		text += "\n[a process the command left behind still holds its output; what it writes is not read]"
		err = nil
	}
	if err != nil {
		return text, cut, fmt.Errorf("bash: output: %w", err)
	}
	return text, cut, nil
}

// abandon closes both ends when the command never started.
func (o *outputPipe) abandon() {
	o.w.Close()
	o.r.Close()
}
