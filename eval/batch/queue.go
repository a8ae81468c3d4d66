package batch

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Queue is a NATS server with JetStream through which a batch's instances
// run on other machines: a work-queue stream holds the instances not yet
// done, a key-value bucket the finished records, an object store each run
// folder as an archive. Object storage rather than a shared path means a
// worker needs nothing mounted: the server is the only thing machines share.
type Queue struct {
	// URL is the server, as NATS clients take it: nats://host:port, with a
	// user and password or a token in the URL, or several URLs separated by
	// commas for a cluster.
	URL string
	// Creds is a NATS credentials file (a user JWT and its seed); "" for none.
	Creds string
	// AckWait is how long a worker may go without a heartbeat before its
	// instance is given to another worker; 0 means DefaultAckWait.
	AckWait time.Duration
	// MaxDeliver is how many times an instance is handed out before it is
	// recorded as failed; 0 means DefaultMaxDeliver.
	MaxDeliver int
}

// Defaults of a queue's delivery policy.
const (
	DefaultAckWait    = 2 * time.Minute
	DefaultMaxDeliver = 3
)

// registryBucket lists the batches on a server, so a worker started with
// only the server's address finds every batch that has work.
const registryBucket = "swe-adept-batches"

// consumerName is the one durable consumer every worker of a batch pulls
// from, so each instance goes to exactly one of them at a time.
const consumerName = "workers"

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

// queueNames are one batch's stream and buckets on the server.
type queueNames struct {
	Batch   string `json:"batch"`
	Stream  string `json:"stream"`
	Subject string `json:"subject"` // jobs are published on Subject.<instance token>
	Results string `json:"results"` // key-value: instance token → Record
	Running string `json:"running"` // key-value: instance token → the worker on it
	Runs    string `json:"runs"`    // object store: instance token → run folder archive
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
		Results: "swe-adept-results-" + b, Running: "swe-adept-running-" + b, Runs: "swe-adept-runs-" + b}, nil
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

// connect opens a connection that keeps reconnecting: a server restart or
// a dropped network pauses a batch instead of ending it.
func (q Queue) connect(name string) (*nats.Conn, jetstream.JetStream, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second)}
	if q.Creds != "" {
		opts = append(opts, nats.UserCredentials(q.Creds))
	}
	nc, err := nats.Connect(q.URL, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to the queue at %s: %w", redactURL(q.URL), err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("JetStream at %s: %w", redactURL(q.URL), err)
	}
	return nc, js, nil
}

// redactURL hides credentials in a server URL (a password, a token or a
// user name) so errors and logs can name the server.
func redactURL(raw string) string {
	var out []string
	for _, one := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || u.Host == "" {
			out = append(out, "(unreadable URL)")
			continue
		}
		if u.User != nil {
			u.User = url.User("***")
		}
		out = append(out, u.String())
	}
	return strings.Join(out, ",")
}

// queueStores are a batch's stream consumer and buckets, opened.
type queueStores struct {
	consumer jetstream.Consumer
	results  jetstream.KeyValue
	running  jetstream.KeyValue
	runs     jetstream.ObjectStore
}

// create makes (or updates) a batch's stream, consumer and buckets. The
// stream keeps at most one message per instance and refuses a second, so
// queuing an instance that is already waiting is a no-op by construction.
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
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: reg.AckWait, MaxDeliver: reg.MaxDeliver})
	if err != nil {
		return s, fmt.Errorf("create consumer on %s: %w", n.Stream, err)
	}
	if s.results, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.Results, Storage: jetstream.FileStorage}); err != nil {
		return s, fmt.Errorf("create bucket %s: %w", n.Results, err)
	}
	// A running marker outlives a dead worker by a few heartbeats at most.
	if s.running, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.Running, TTL: 3 * reg.AckWait}); err != nil {
		return s, fmt.Errorf("create bucket %s: %w", n.Running, err)
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
	if s.running, err = js.KeyValue(ctx, n.Running); err != nil {
		return s, fmt.Errorf("bucket %s: %w", n.Running, err)
	}
	if s.runs, err = js.ObjectStore(ctx, n.Runs); err != nil {
		return s, fmt.Errorf("object store %s: %w", n.Runs, err)
	}
	return s, nil
}

func registry(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: registryBucket, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("create bucket %s: %w", registryBucket, err)
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

// alreadyQueued reports the stream's refusal of a second message for an
// instance that is waiting or being worked on.
func alreadyQueued(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && strings.Contains(strings.ToLower(apiErr.Description), "maximum messages per subject")
}
