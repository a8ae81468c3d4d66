package index

import (
	"container/heap"
	"sync"
)

// fileQueue hands the walk's candidates to the extraction workers while
// the walk goes on, largest first among those found so far, so that no big
// file is left to parse alone at the end while the other workers idle.
type fileQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	all    []*job
	ready  jobHeap
	closed bool
}

// job is one candidate and, once extracted, its outcome.
type job struct {
	c   candidate
	out extractOut
}

func newFileQueue() *fileQueue {
	q := &fileQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push adds a candidate; the walk calls it from several goroutines.
func (q *fileQueue) push(c candidate) {
	q.mu.Lock()
	j := &job{c: c}
	q.all = append(q.all, j)
	heap.Push(&q.ready, j)
	q.mu.Unlock()
	q.cond.Signal()
}

// close says the walk is over; workers drain what is left.
func (q *fileQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// pop blocks for the largest waiting job; nil once closed and drained.
func (q *fileQueue) pop() *job {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.ready) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.ready) == 0 {
		return nil
	}
	return heap.Pop(&q.ready).(*job)
}

// found is how many candidates the walk has found so far.
func (q *fileQueue) found() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.all)
}

type jobHeap []*job

func (h jobHeap) Len() int { return len(h) }
func (h jobHeap) Less(i, j int) bool {
	if h[i].c.size != h[j].c.size {
		return h[i].c.size > h[j].c.size
	}
	return h[i].c.rel < h[j].c.rel
}
func (h jobHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *jobHeap) Push(x any)   { *h = append(*h, x.(*job)) }
func (h *jobHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	*h = old[:len(old)-1]
	return j
}
