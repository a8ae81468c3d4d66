package batch

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/swe-adept/swe-adept/eval/swebench"
)

// Queue is a NATS server with JetStream through which a batch's instances
// run on other machines: a work-queue stream holds the instances not yet
// done, a key-value bucket the finished records, an object store each run
// folder as an archive. Object storage rather than a shared path means a
// worker needs nothing mounted: the server is the only thing machines share.
type Queue struct {
	// URL is the server, as NATS clients take it: nats://host:port, or
	// several URLs separated by commas for a cluster. Credentials are best
	// kept out of it (it shows in ps): see Token, User and Creds.
	URL string
	// Creds is a NATS credentials file (a user JWT and its seed); "" for none.
	Creds string
	// Token, or User and Password, authenticate to the server.
	Token, User, Password string
	// AckWait is how long a worker may go without a heartbeat before its
	// instance is given to another worker; 0 means DefaultAckWait.
	AckWait time.Duration
	// MaxDeliver is how many workers may start an instance and stop
	// without a result before it is recorded as failed; 0 means
	// DefaultMaxDeliver.
	MaxDeliver int
	// Wait is how long an unreachable server is waited for, when starting
	// or after the connection is lost, before giving up; 0 waits as long
	// as it takes (saying so).
	Wait time.Duration

	tune timing // the defaults, or shorter in tests
}

// Defaults of a queue's delivery policy.
const (
	DefaultAckWait    = 2 * time.Minute
	DefaultMaxDeliver = 3
)

// timing is how often the processes of a queue look at each other.
type timing struct {
	lease     time.Duration // a coordinator's hold on its batch lapses this long after its last renewal
	beat      time.Duration // a worker says it is alive this often
	reconcile time.Duration // a coordinator compares its batch with the server's state this often
	quiet     time.Duration // a coordinator says what it waits for after this long without a result
}

var defaultTiming = timing{lease: 30 * time.Second, beat: 5 * time.Second, reconcile: 30 * time.Second, quiet: time.Minute}

func (q Queue) timing() timing {
	t := q.tune
	if t.lease <= 0 {
		t.lease = defaultTiming.lease
	}
	if t.beat <= 0 {
		t.beat = defaultTiming.beat
	}
	if t.reconcile <= 0 {
		t.reconcile = defaultTiming.reconcile
	}
	if t.quiet <= 0 {
		t.quiet = defaultTiming.quiet
	}
	return t
}

// presence is how long a worker's presence lasts unless renewed.
func (t timing) presence() time.Duration { return 6 * t.beat }

func (q Queue) ackWait() time.Duration {
	if q.AckWait <= 0 {
		return DefaultAckWait
	}
	return q.AckWait
}

func (q Queue) maxDeliver() int {
	if q.MaxDeliver <= 0 {
		return DefaultMaxDeliver
	}
	return q.MaxDeliver
}

// Buckets every batch on a server shares.
const (
	// registryBucket lists the batches on a server, so a worker started
	// with only the server's address finds every batch that has work.
	registryBucket = "swe-adept-batches"
	// workersBucket holds each connected worker's presence: what it runs
	// and which repositories it lacks. Entries lapse when a worker stops
	// renewing them.
	workersBucket = "swe-adept-workers"
	// leaseBucket holds each batch's coordinator lease.
	leaseBucket = "swe-adept-coordinators"
)

// consumerName is the one durable consumer every worker of a batch pulls
// from, so each instance goes to exactly one of them at a time.
const consumerName = "workers"

// queueNames are one batch's stream and buckets on the server.
type queueNames struct {
	Batch   string `json:"batch"`
	Stream  string `json:"stream"`
	Subject string `json:"subject"` // jobs are published on Subject.<instance token>
	Results string `json:"results"` // key-value: instance token → stored
	Claims  string `json:"claims"`  // key-value: instance token → claim, the attempts at it
	Runs    string `json:"runs"`    // object store: run folder archives, named in stored.Archive
}

// namesFor derives a batch's names from its output folder: the folder's
// base name to be readable on the server, and a hash of its absolute path
// so two batches with folders of the same name do not meet.
func namesFor(outDir string) (queueNames, error) {
	abs, err := filepath.Abs(outDir)
	if err != nil {
		return queueNames{}, fmt.Errorf("batch output folder: %w", err)
	}
	sum := sha256.Sum256([]byte(abs))
	b := fmt.Sprintf("%s-%x", safeName(filepath.Base(abs)), sum[:5])
	return queueNames{Batch: b, Stream: "swe-adept-" + b, Subject: "swe-adept.jobs." + b,
		Results: "swe-adept-results-" + b, Claims: "swe-adept-claims-" + b, Runs: "swe-adept-runs-" + b}, nil
}

// safeName keeps the characters every NATS name allows, and at most 24.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 24 {
			break
		}
	}
	if b.Len() == 0 {
		return "batch"
	}
	return b.String()
}

// token is an instance id as one subject token and key: ids may hold
// characters (dots, slashes, spaces) that NATS gives meaning to.
func token(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

// registration is a batch's entry in the registry: what a worker needs to
// run its instances exactly as a local batch would.
type registration struct {
	Names      queueNames    `json:"names"`
	Spec       RunnerSpec    `json:"spec"`
	Timeout    time.Duration `json:"timeout"`
	MaxDeliver int           `json:"max_deliver"`
	AckWait    time.Duration `json:"ack_wait"`
}

// job is one message on a batch's stream. Round counts the times the
// coordinator queued the instance: each is a fresh message (its id holds
// the round, so the server's duplicate window never swallows a retry)
// with a fresh budget of attempts.
type job struct {
	Instance swebench.Instance `json:"instance"`
	Round    int               `json:"round"`
}

// stored is a result in the results bucket. A worker creates it once and
// never overwrites it, so the first result stored is the one kept.
type stored struct {
	Record  Record `json:"record"`
	Archive string `json:"archive,omitempty"` // the run folder's object, "" when none was stored
	Round   int    `json:"round"`
	// Saved: a coordinator has it in the output folder. A saved result
	// whose run folder is gone from there was deleted to run it again.
	Saved bool `json:"saved,omitempty"`
}

// claim is the attempts at an instance in its current round: a worker
// counts itself in before it runs the instance, and counts itself out
// when it hands the instance back through no fault of the instance's.
type claim struct {
	Round    int       `json:"round"`
	Attempt  int       `json:"attempt"`
	Worker   string    `json:"worker"`
	WorkerID string    `json:"worker_id"`
	Previous string    `json:"previous,omitempty"` // the worker of the attempt before
	Since    time.Time `json:"since"`
}

// queueStores are a batch's stream consumer and buckets, opened.
type queueStores struct {
	consumer jetstream.Consumer
	results  jetstream.KeyValue
	claims   jetstream.KeyValue
	runs     jetstream.ObjectStore
}

// create makes (or updates) a batch's stream, consumer and buckets. The
// stream keeps at most one message per instance and refuses a second, so
// queuing an instance that is already waiting is a no-op by construction.
// The consumer delivers without limit: workers count the attempts in the
// claims bucket, so an instance never sits on the server undeliverable.
func create(ctx context.Context, js jetstream.JetStream, reg registration) (queueStores, error) {
	n := reg.Names
	var s queueStores
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: n.Stream, Subjects: []string{n.Subject + ".>"},
		Retention: jetstream.WorkQueuePolicy, Discard: jetstream.DiscardNew, DiscardNewPerSubject: true,
		MaxMsgsPerSubject: 1, Storage: jetstream.FileStorage})
	if err != nil {
		return s, fmt.Errorf("create stream %s: %w", n.Stream, err)
	}
	s.consumer, err = js.CreateOrUpdateConsumer(ctx, n.Stream, jetstream.ConsumerConfig{Durable: consumerName,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: reg.AckWait, MaxDeliver: -1})
	if err != nil {
		return s, fmt.Errorf("create consumer on %s: %w", n.Stream, err)
	}
	if s.results, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.Results, Storage: jetstream.FileStorage}); err != nil {
		return s, fmt.Errorf("create bucket %s: %w", n.Results, err)
	}
	if s.claims, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.Claims, Storage: jetstream.FileStorage}); err != nil {
		return s, fmt.Errorf("create bucket %s: %w", n.Claims, err)
	}
	if s.runs, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: n.Runs, Storage: jetstream.FileStorage}); err != nil {
		return s, fmt.Errorf("create object store %s: %w", n.Runs, err)
	}
	return s, nil
}

// open binds to a batch's stream consumer and buckets, which its
// coordinator made.
func open(ctx context.Context, js jetstream.JetStream, n queueNames) (queueStores, error) {
	var s queueStores
	var err error
	if s.consumer, err = js.Consumer(ctx, n.Stream, consumerName); err != nil {
		return s, fmt.Errorf("consumer of %s: %w", n.Stream, err)
	}
	if s.results, err = js.KeyValue(ctx, n.Results); err != nil {
		return s, fmt.Errorf("bucket %s: %w", n.Results, err)
	}
	if s.claims, err = js.KeyValue(ctx, n.Claims); err != nil {
		return s, fmt.Errorf("bucket %s: %w", n.Claims, err)
	}
	if s.runs, err = js.ObjectStore(ctx, n.Runs); err != nil {
		return s, fmt.Errorf("object store %s: %w", n.Runs, err)
	}
	return s, nil
}

// bucket opens a bucket every batch shares, making it if needed.
func bucket(ctx context.Context, js jetstream.JetStream, name string, ttl time.Duration) (jetstream.KeyValue, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: name, TTL: ttl, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("create bucket %s: %w", name, err)
	}
	return kv, nil
}

func putJSON(ctx context.Context, kv jetstream.KeyValue, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = kv.Put(ctx, key, b)
	return err
}

// getJSON reads a key into v and returns its revision.
func getJSON(ctx context.Context, kv jetstream.KeyValue, key string, v any) (uint64, error) {
	e, err := kv.Get(ctx, key)
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(e.Value(), v); err != nil {
		return 0, fmt.Errorf("read %s: %w", key, err)
	}
	return e.Revision(), nil
}

// alreadyQueued reports the stream's refusal of a second message for an
// instance that is waiting or being worked on.
func alreadyQueued(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && strings.Contains(strings.ToLower(apiErr.Description), "maximum messages per subject")
}

// gone reports an answer from the server that a batch's stream, consumer
// or bucket does not exist: it lost them (restarted with an empty store),
// or someone deleted them.
func gone(err error) bool {
	return errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrConsumerNotFound) ||
		errors.Is(err, jetstream.ErrBucketNotFound)
}

// errDataLost is how a coordinator ends when the server lost its batch.
var errDataLost = errors.New("the server lost this batch's data; run the same command again to queue what is missing")
