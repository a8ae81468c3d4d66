package event

import (
	"context"
	"sync"
)

// Gate lets the engineer steer a running agent: pause, resume, step one tool
// call at a time, and leave notes that the agent reads at its next turn.
// Agents call Pass before each tool call and Notes before each model call.
type Gate struct {
	mu     sync.Mutex
	paused bool
	steps  int
	notes  []string
	wake   chan struct{}
}

// NewGate returns an open gate.
func NewGate() *Gate { return &Gate{wake: make(chan struct{})} }

// Pause stops agents at their next Pass.
func (g *Gate) Pause() { g.mu.Lock(); g.paused = true; g.mu.Unlock() }

// Resume lets paused agents go on.
func (g *Gate) Resume() {
	g.mu.Lock()
	g.paused = false
	g.broadcast()
	g.mu.Unlock()
}

// Step lets one tool call through while paused.
func (g *Gate) Step() {
	g.mu.Lock()
	g.steps++
	g.broadcast()
	g.mu.Unlock()
}

// Paused reports whether the gate is paused.
func (g *Gate) Paused() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.paused }

// Note queues a message from the engineer for the agent's next turn.
func (g *Gate) Note(text string) { g.mu.Lock(); g.notes = append(g.notes, text); g.mu.Unlock() }

// Notes takes the queued notes.
func (g *Gate) Notes() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.notes
	g.notes = nil
	return n
}

// Pass blocks while the gate is paused (consuming one step if there is one)
// or until ctx ends. A nil gate never blocks.
func (g *Gate) Pass(ctx context.Context) error {
	if g == nil {
		return nil
	}
	for {
		g.mu.Lock()
		if !g.paused {
			g.mu.Unlock()
			return nil
		}
		if g.steps > 0 {
			g.steps--
			g.mu.Unlock()
			return nil
		}
		wake := g.wake
		g.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// broadcast wakes every waiter; callers hold g.mu.
func (g *Gate) broadcast() {
	close(g.wake)
	g.wake = make(chan struct{})
}

// NotesOrNil is Notes on a gate that may be nil.
func (g *Gate) NotesOrNil() []string {
	if g == nil {
		return nil
	}
	return g.Notes()
}
