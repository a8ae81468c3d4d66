package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Streaming goes through go-openai for the request (URL, auth, Azure's
// shape) and for error statuses, but the transport takes the body of a
// successful answer aside and this file reads it: providers bend the
// event stream in ways go-openai's reader does not forgive (keep-alive
// comments that count against it, errors mid-stream in shapes it does
// not know, no [DONE], arguments as objects, reasoning under two names).

// Delta is a piece of the assistant's turn as it streams.
type Delta struct {
	Content   string // the next words of the answer
	Reasoning string // the next words of the model's reasoning
	// Restart says the stream broke and the call starts over: what came
	// before is void.
	Restart bool
}

// maxEventLine bounds one line of the event stream: a server cannot make
// the client hold an unbounded line.
const maxEventLine = 16 << 20

// errStreamCut is a stream that ended before the turn was complete.
var errStreamCut = errors.New("the stream ended before the answer was complete")

// streamError is an error object the server sent inside a stream.
type streamError struct {
	msg, code string
}

func (e *streamError) Error() string { return e.msg }

// streamAttempt makes one streaming call and assembles the turn from its
// chunks, handing the text to sink as it comes. The attempt ends when the
// server has sent nothing for AttemptTimeout, not after a fixed time: a
// long answer may take longer than that to write.
func (o *OpenAI) streamAttempt(ctx context.Context, creq openai.ChatCompletionRequest, patch patchRequest, sink *deltaSink) (turnReply, *attemptInfo, error) {
	info := &attemptInfo{patch: patch, headers: o.cfg.Headers, stream: true}
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(o.cfg.AttemptTimeout, func() { cancel(errAttemptTimeout) })
	defer idle.Stop()
	stream, err := o.client.CreateChatCompletionStream(context.WithValue(actx, attemptKey{}, info), creq)
	if err != nil {
		return turnReply{}, info, o.attemptError(ctx, actx, err)
	}
	stream.Close() // its body is empty: the transport kept the real one
	if info.body == nil {
		return turnReply{}, info, fmt.Errorf("%w: no body", errStreamCut)
	}
	defer info.body.Close()
	body := bufio.NewReaderSize(info.body, 64<<10)
	if answeredWhole(body, info.contentType) {
		r, err := wholeReply(body)
		return r, info, err
	}
	asm := newAssembler(sink)
	err = readEvents(body, func(data []byte) error {
		idle.Reset(o.cfg.AttemptTimeout)
		return asm.add(data)
	})
	var se *streamError
	switch {
	case err != nil && (ctx.Err() != nil || errors.Is(context.Cause(actx), errAttemptTimeout) || errors.As(err, &se)):
		return turnReply{}, info, o.attemptError(ctx, actx, err)
	case err != nil:
		// Whatever broke the connection mid-answer, the turn is incomplete:
		// it is tried again like a dropped connection.
		return turnReply{}, info, fmt.Errorf("%w: %v", errStreamCut, err)
	case !asm.complete():
		return turnReply{}, info, errStreamCut
	}
	return asm.reply(), info, nil
}

// attemptError names why an attempt failed: the caller's context, the
// idle time-out, or the error itself.
func (o *OpenAI) attemptError(ctx, actx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(context.Cause(actx), errAttemptTimeout):
		return errAttemptTimeout
	}
	return err
}

// readEvents calls each with the data of every event in a server-sent
// event stream until [DONE], the end of the body, or an error. Comments
// (": keep-alive", ": OPENROUTER PROCESSING"), event names, ids and blank
// lines are skipped; every data line is an event of its own, since some
// servers leave out the blank line between events.
func readEvents(body io.Reader, each func(data []byte) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	for sc.Scan() {
		line := sc.Bytes()
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			continue
		}
		if string(data) == "[DONE]" {
			return each(data)
		}
		if err := each(data); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &streamError{msg: fmt.Sprintf("the stream sent a line longer than %d bytes", maxEventLine)}
		}
		return err
	}
	return nil
}

// answeredWhole reports whether a server ignored stream: true and sent
// one JSON body: by its content type, or by a body that opens with "{".
func answeredWhole(body *bufio.Reader, contentType string) bool {
	if strings.Contains(contentType, "event-stream") {
		return false
	}
	for {
		b, err := body.Peek(1)
		if err != nil {
			return false
		}
		if b[0] != ' ' && b[0] != '\n' && b[0] != '\r' && b[0] != '\t' {
			return b[0] == '{'
		}
		_, _ = body.ReadByte()
	}
}

// errMalformed is a whole answer that is not a completion.
type errMalformed struct{ detail string }

func (e *errMalformed) Error() string { return e.detail }

// wholeReply reads a complete (non-streamed) answer.
func wholeReply(body io.Reader) (turnReply, error) {
	raw, err := io.ReadAll(io.LimitReader(body, maxEventLine))
	if err != nil {
		return turnReply{}, fmt.Errorf("%w: %v", errStreamCut, err)
	}
	norm, extras := normalizeResponse(raw)
	var resp openai.ChatCompletionResponse
	if err := json.Unmarshal(norm, &resp); err != nil {
		return turnReply{}, &errMalformed{fmt.Sprintf("%v (%s)", err, clip(string(raw), 200))}
	}
	if len(resp.Choices) == 0 {
		return turnReply{}, &errMalformed{"no choices"}
	}
	return turnReply{msg: fromOpenAIMessage(resp.Choices[0].Message, extras), usage: resp.Usage, extras: extras,
		finish: string(resp.Choices[0].FinishReason)}, nil
}
