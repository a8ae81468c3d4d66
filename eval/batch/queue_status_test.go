package batch

import (
	"testing"

	"github.com/swe-adept/swe-adept/eval/swebench"
)

func TestWaitingLine(t *testing.T) {
	ins := map[string]swebench.Instance{}
	var order []string
	for _, in := range []swebench.Instance{{InstanceID: "a-1", Repo: "o/a"}, {InstanceID: "a-2", Repo: "o/a"}, {InstanceID: "b-1", Repo: "o/b"}, {InstanceID: "b-2", Repo: "o/b"}} {
		ins[token(in.InstanceID)] = in
		order = append(order, token(in.InstanceID))
	}
	queued := map[string]bool{token("a-1"): true, token("a-2"): true, token("b-1"): true, token("b-2"): true}
	w1 := presence{Name: "w1", ID: "1", Running: map[string][]string{"batch": {"a-1"}}, Lacks: map[string]string{"o/b": "no repository"}}
	w2 := presence{Name: "w2", ID: "2", Lacks: map[string]string{"o/b": "no repository"}}
	tests := []struct {
		name    string
		workers []presence
		unsaved int
		want    string
	}{
		{"no worker", nil, 0, "waiting for 4 instances: 0 running, 0 queued, 4 stalled (no worker is connected: o/a: 2, o/b: 2); no worker is connected to the queue"},
		{"one lacks a repository", []presence{w1}, 0, "waiting for 4 instances: 1 running (w1: a-1), 1 queued, 2 stalled (no connected worker has their repository: o/b: 2); 1 worker connected"},
		{"unsaved", []presence{w1, w2}, 1, "waiting for 4 instances: 1 running (w1: a-1), 1 queued, 2 stalled (no connected worker has their repository: o/b: 2), 1 not saved yet; 2 workers connected"},
	}
	for _, tt := range tests {
		if got := waitingLine("batch", ins, order, queued, tt.workers, tt.unsaved); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestVisible(t *testing.T) {
	if got := visible("a\x1b[31mb\x07\tc\u009bd"); got != "a\uFFFD[31mb\uFFFD\tc\uFFFDd" {
		t.Fatalf("visible: %q", got)
	}
}
