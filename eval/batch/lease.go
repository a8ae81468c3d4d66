package batch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// lease is a coordinator's hold on its batch on the server: one key in
// the lease bucket, which lapses (the bucket's TTL) unless renewed. It
// keeps a second coordinator off a batch whose output folder has the same
// path on another machine, where the folder's lock cannot reach.
type lease struct {
	kv  jetstream.KeyValue
	key string
	me  leaseHolder
	rev uint64
}

// leaseHolder is what a lease says about its coordinator.
type leaseHolder struct {
	ID    string    `json:"id"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Out   string    `json:"out"`
	Since time.Time `json:"since"`
}

func (h leaseHolder) String() string {
	return fmt.Sprintf("pid %d on %s, writing %s since %s", h.PID, h.Host, h.Out, h.Since.Local().Format(time.DateTime))
}

// errLeaseLost ends a coordinator whose lease another took over.
var errLeaseLost = errors.New("another coordinator took over this batch")

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// acquireLease takes the batch's lease. A lease held by previous (the
// last holder of this output folder's lock, so gone) is taken over at
// once; one held by another coordinator is waited for until it lapses,
// and refused if it is renewed meanwhile.
func acquireLease(ctx context.Context, js jetstream.JetStream, key, out, previous string, ttl time.Duration, say func(string)) (*lease, error) {
	kv, err := bucket(ctx, js, leaseBucket, ttl)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	l := &lease{kv: kv, key: key, me: leaseHolder{ID: newID(), Host: host, PID: os.Getpid(), Out: out, Since: time.Now()}}
	me, err := json.Marshal(l.me)
	if err != nil {
		return nil, err
	}
	var seen uint64
	deadline := time.Now().Add(ttl + ttl/2)
	for {
		if l.rev, err = kv.Create(ctx, key, me); err == nil {
			return l, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("take the batch's lease: %w", err)
		}
		var other leaseHolder
		rev, err := getJSON(ctx, kv, key, &other)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			continue // it lapsed just now
		case err != nil:
			return nil, fmt.Errorf("read the batch's lease: %w", err)
		case previous != "" && other.ID == previous:
			if l.rev, err = kv.Update(ctx, key, me, rev); err == nil {
				return l, nil
			}
			continue
		case seen == 0:
			seen = rev
			say(fmt.Sprintf("another coordinator (%s) holds this batch; waiting up to %s for its lease to lapse", other, ttl))
		case rev != seen || time.Now().After(deadline):
			return nil, fmt.Errorf("another coordinator (%s) is running this batch: stop it first, or give this one another --out", other)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(ttl / 10):
		}
	}
}

// renew keeps the lease. It fails with errLeaseLost when another
// coordinator holds it now (this one was cut off for longer than the
// lease); a server that does not answer is not a lost lease.
func (l *lease) renew(ctx context.Context) error {
	me, err := json.Marshal(l.me)
	if err != nil {
		return err
	}
	rev, err := l.kv.Update(ctx, l.key, me, l.rev)
	if err == nil {
		l.rev = rev
		return nil
	}
	if gone(err) {
		return errDataLost
	}
	var other leaseHolder
	cur, gerr := getJSON(ctx, l.kv, l.key, &other)
	switch {
	case gerr == nil && other.ID == l.me.ID:
		l.rev = cur // the last renewal went through, its answer did not
	case errors.Is(gerr, jetstream.ErrKeyNotFound):
		// It lapsed while this coordinator was cut off, and nobody took it.
		if rev, err := l.kv.Create(ctx, l.key, me); err == nil {
			l.rev = rev
			return nil
		}
	case gerr == nil:
		return fmt.Errorf("%w (%s)", errLeaseLost, other)
	}
	return nil // the server did not answer: try again at the next renewal
}

// release gives the lease up, if it is still this coordinator's.
func (l *lease) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = l.kv.Delete(ctx, l.key, jetstream.LastRevision(l.rev))
}
