package event

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestBusPersistsThenPublishes(t *testing.T) {
	var log bytes.Buffer
	b := NewBus(&log)
	ch := b.Subscribe()
	b.Emit(Event{Type: PhaseChanged, Phase: "localize"})
	b.Emit(Event{Type: SearchNode, Node: &Node{ID: "a.py:f"}})
	b.Close()
	b.Emit(Event{Type: Done}) // after Close: dropped, no panic
	var got []Event
	for e := range ch {
		got = append(got, e)
	}
	saved, err := ReadAll(&log)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(saved) != 2 {
		t.Fatalf("published %d, saved %d events; want 2 and 2", len(got), len(saved))
	}
	for i := range got {
		if got[i].Seq != i+1 || saved[i].Seq != i+1 || saved[i].Type != got[i].Type {
			t.Errorf("event %d: published %+v saved %+v", i, got[i], saved[i])
		}
	}
}

// TestDeltasArePublishedNotSaved: a streamed delta reaches subscribers
// but gets no number and is not written to the log, so a run's saved
// events are the same streamed or not.
func TestDeltasArePublishedNotSaved(t *testing.T) {
	var log bytes.Buffer
	b := NewBus(&log)
	ch := b.Subscribe()
	b.Emit(Event{Type: ModelCall})
	b.Emit(Event{Type: Delta, Text: "Let me "})
	b.Emit(Event{Type: Delta, Text: "look.", Delta: &DeltaInfo{Reasoning: "hmm"}})
	b.Emit(Event{Type: ModelReply, Text: "Let me look."})
	b.Close()
	var got []Event
	for e := range ch {
		got = append(got, e)
	}
	saved, err := ReadAll(&log)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[1].Type != Delta || got[1].Seq != 0 || got[3].Seq != 2 {
		t.Fatalf("published %+v", got)
	}
	if len(saved) != 2 || saved[0].Type != ModelCall || saved[1].Type != ModelReply || saved[1].Seq != 2 {
		t.Errorf("saved %+v, want the call and the reply, numbered 1 and 2", saved)
	}
}

func TestReadAllReportsWhereItBroke(t *testing.T) {
	_, err := ReadAll(bytes.NewBufferString("{\"seq\":1,\"type\":\"phase\"}\n{broken"))
	if err == nil {
		t.Fatal("want an error for a truncated log")
	}
}

func TestApprovalAnsweredOnce(t *testing.T) {
	r := NewApproval("a1", "revert_to", "h1/t2")
	r.Answer(Reply{Decision: Refuse, Reason: "keep going"})
	r.Answer(Reply{Decision: Approve}) // ignored: must not block
	got, err := r.Wait(context.Background())
	if err != nil || got.Decision != Refuse || got.Reason != "keep going" {
		t.Fatalf("Wait = %+v, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewApproval("a2", "merge_solution", "b").Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait on a cancelled context = %v, want context.Canceled", err)
	}
	var replayed ApprovalRequest // decoded from JSON: no channel
	replayed.Answer(Reply{Decision: Approve})
	if _, err := replayed.Wait(context.Background()); err == nil {
		t.Error("Wait on a request without a channel must fail, not block")
	}
}

func TestPolicy(t *testing.T) {
	req := NewApproval("a", "merge_solution", "b")
	if r, _ := Policy(Approve).Approve(context.Background(), req); r.Decision != Approve {
		t.Errorf("auto policy = %v", r.Decision)
	}
	if r, _ := Policy(Refuse).Approve(context.Background(), req); r.Decision != Refuse || r.Reason == "" {
		t.Errorf("deny policy = %+v", r)
	}
}

func TestGatePauseStepResume(t *testing.T) {
	g := NewGate()
	ctx := context.Background()
	if err := g.Pass(ctx); err != nil {
		t.Fatalf("open gate: %v", err)
	}
	g.Pause()
	passed := make(chan struct{}, 3)
	go func() {
		for i := 0; i < 3; i++ {
			if g.Pass(ctx) == nil {
				passed <- struct{}{}
			}
		}
	}()
	expectNone := func(what string) {
		select {
		case <-passed:
			t.Fatalf("%s: a call passed a paused gate", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
	expectOne := func(what string) {
		select {
		case <-passed:
		case <-time.After(2 * time.Second):
			t.Fatalf("%s: nothing passed", what)
		}
	}
	expectNone("paused")
	g.Step()
	expectOne("step")
	expectNone("after one step")
	g.Resume()
	expectOne("resume")
	expectOne("resume")

	var nilGate *Gate
	if nilGate.Pass(ctx) != nil || nilGate.NotesOrNil() != nil {
		t.Error("a nil gate must never block and has no notes")
	}
	g.Note("a")
	g.Note("b")
	if n := g.Notes(); len(n) != 2 || len(g.Notes()) != 0 {
		t.Errorf("notes = %v; want two, then none", n)
	}
}

func TestBusDoesNotStallOnAStuckSubscriber(t *testing.T) {
	b := NewBus(nil)
	stuck := b.Subscribe() // never read until the end
	live := b.Subscribe()
	go func() {
		for range live {
		}
	}()
	done := make(chan struct{})
	go func() {
		for i := 0; i < 5000; i++ {
			b.Emit(Event{Type: ToolCall})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("emitting stalled behind a subscriber that stopped reading")
	}
	// The live reader may fall behind and lose some too, so the stuck
	// subscriber's losses are a lower bound.
	if len(stuck) != cap(stuck) || b.Dropped() < 5000-cap(stuck) {
		t.Errorf("stuck holds %d of %d, dropped %d; want full and at least %d dropped",
			len(stuck), cap(stuck), b.Dropped(), 5000-cap(stuck))
	}
	<-stuck // make room: a terminal event waits for it rather than being dropped
	b.Emit(Event{Type: Done})
	b.Close()
	var last Event
	for e := range stuck {
		last = e
	}
	if last.Type != Done {
		t.Errorf("the stuck subscriber's last event is %s, want done", last.Type)
	}
}

// TestQuestionIDsAreUniqueInARun: every question of a run gets its own id,
// whatever its kind, and a resumed run numbers after the ones it asked.
func TestQuestionIDsAreUniqueInARun(t *testing.T) {
	var log bytes.Buffer
	b := NewBus(&log)
	ask := func(action string) string {
		req := NewApproval("", action, "x")
		if _, err := Ask(context.Background(), b, Runtime, Policy(Refuse), req); err != nil {
			t.Fatal(err)
		}
		return req.ID
	}
	var got []string
	for _, a := range []string{"edit_locations", "edit_locations", "bash", "revert_to", "merge_solution", "bash"} {
		got = append(got, ask(a))
	}
	want := []string{"locations-1", "locations-2", "bash-3", "revert-4", "merge-5", "bash-6"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("ids %v, want %v", got, want)
	}
	evs, err := ReadAll(&log)
	if err != nil {
		t.Fatal(err)
	}
	resumed := NewBus(nil)
	resumed.ContinueQuestions(LastQuestion(evs))
	b = resumed
	if id := ask("edit_locations"); id != "locations-7" {
		t.Fatalf("a resumed run's first question is %s, want locations-7", id)
	}
}

func TestAnswerCountsOnceAcrossCopies(t *testing.T) {
	r := NewApproval("q-1", "bash", "ls")
	cp := *r // the approval_done event carries a copy
	if !cp.Same(r) || cp.Answered() {
		t.Fatal("a copy is not the same unanswered question")
	}
	if !r.Answer(Reply{Decision: Approve}) || cp.Answer(Reply{Decision: Refuse}) || !cp.Answered() {
		t.Fatal("the second answer, through a copy, counted")
	}
	if other := NewApproval("q-1", "bash", "ls"); other.Same(r) {
		t.Fatal("two live questions with one id are the same")
	}
}

// TestBusTerminalEventToAFullSubscriberHoldsNoLock: a terminal event for a
// subscriber whose buffer is full waits for room without holding the bus,
// so other agents keep publishing and a screen can still subscribe; the
// event still arrives, after what was buffered and in order.
func TestBusTerminalEventToAFullSubscriberHoldsNoLock(t *testing.T) {
	b := NewBus(nil)
	full := b.Subscribe()
	for len(full) < cap(full) {
		b.Emit(Event{Type: ToolCall})
	}
	t.Cleanup(func() { // make room for a bus that waits for it, so the test ends
		go func() {
			for range full {
			}
		}()
		b.Close()
	})
	finished := make(chan string, 4)
	go func() { b.Emit(Event{Type: Done}); finished <- "the terminal emit" }()
	go func() { b.Emit(Event{Type: ToolCall}); finished <- "an ordinary emit" }()
	go func() { b.Emit(Event{Type: Error, Text: "boom"}); finished <- "a second terminal emit" }()
	go func() { b.Subscribe(); finished <- "a subscribe" }()
	timeout := time.After(5 * time.Second)
	for range 4 {
		select {
		case <-finished:
		case <-timeout:
			t.Fatal("the bus stalled behind a full subscriber while delivering a terminal event")
		}
	}
	b.Close()
	var terminal []Type
	last := 0
	for e := range full {
		if e.Seq <= last {
			t.Fatalf("event %d arrived after event %d", e.Seq, last)
		}
		last = e.Seq
		if e.Terminal() {
			terminal = append(terminal, e.Type)
		}
	}
	if len(terminal) != 2 {
		t.Errorf("terminal events delivered %v, want done and error both", terminal)
	}
}
