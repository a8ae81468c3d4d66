package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-adept/swe-adept/eval/batch"
)

func init() {
	register(&command{
		name:    "worker",
		summary: "run the instances of batches started with 'batch --queue', on this machine",
		usage: "--queue nats://HOST:PORT --repos DIR [--workers N] [--work DIR] [--name NAME]\n" +
			"         [--queue-creds FILE | --queue-token-file FILE | --queue-user NAME --queue-password-file FILE] [--queue-wait 5m]",
		flags:  withFlags(declareWorkerFlags, runWorker),
		noRepo: true,
	})
}

type workerFlags struct {
	cfg     batch.WorkerConfig
	secrets queueSecrets
}

// declareWorkerFlags puts the flags of worker on fs, bound to f.
func declareWorkerFlags(fs *flag.FlagSet, f *workerFlags) {
	c := &f.cfg
	queueFlags(fs, &c.Queue, &f.secrets, "where the batches are")
	fs.StringVar(&c.ReposDir, "repos", "", "`folder` holding each repository as OWNER/NAME (a clone or a bare mirror)")
	fs.IntVar(&c.Workers, "workers", 1, "instances worked on at once")
	fs.StringVar(&c.WorkDir, "work", "", "`folder` for checkouts and run folders while an instance runs (default: under the system's temporary folder)")
	fs.StringVar(&c.Name, "name", "", "this worker's `name` in records and logs (default: host name and process id)")
}

// workerConfig checks the parsed flags together and makes the worker's
// settings, completed from the environment.
func workerConfig(f workerFlags, pos []string, getenv func(string) string) (batch.WorkerConfig, error) {
	c := f.cfg
	switch {
	case len(pos) > 0:
		return c, usagef("unexpected argument %q", pos[0])
	case c.Queue.URL == "" || c.ReposDir == "":
		return c, usagef("--queue and --repos are required")
	case c.Workers < 1:
		return c, usagef("--workers must be at least 1, not %d", c.Workers)
	}
	if err := checkDir("--repos", c.ReposDir); err != nil {
		return c, err
	}
	return c, f.secrets.apply(&c.Queue, getenv)
}

// runWorker serves every batch on the queue until interrupted; the
// instances it is running go back on the queue for other workers.
func runWorker(ctx context.Context, f *workerFlags, pos []string, std streams) error {
	c, err := workerConfig(*f, pos, os.Getenv)
	if err != nil {
		return err
	}
	c.Progress = std.err
	warnSecretInURL(std.err, c.Queue.URL)
	defer ownLog("worker", std.err)()
	return batch.Work(ctx, c)
}

// Where a batch or a worker finds its queue's secrets, so that none need
// be on the command line, which every user of the machine can read.
const (
	envQueueToken    = "SWE_ADEPT_QUEUE_TOKEN"
	envQueueUser     = "SWE_ADEPT_QUEUE_USER"
	envQueuePassword = "SWE_ADEPT_QUEUE_PASSWORD"
)

// queueSecrets are the files a queue's secrets are read from.
type queueSecrets struct{ tokenFile, passwordFile string }

// queueFlags declares how a batch or a worker reaches its NATS server.
func queueFlags(fs *flag.FlagSet, q *batch.Queue, s *queueSecrets, use string) {
	fs.StringVar(&q.URL, "queue", "", "a NATS server with JetStream, `nats://HOST:PORT` (commas for a cluster): "+use)
	fs.StringVar(&q.Creds, "queue-creds", "", "a NATS credentials `file` for --queue")
	fs.StringVar(&s.tokenFile, "queue-token-file", "", "a `file` holding the token for --queue (or set "+envQueueToken+")")
	fs.StringVar(&q.User, "queue-user", "", "the user `name` for --queue (or set "+envQueueUser+")")
	fs.StringVar(&s.passwordFile, "queue-password-file", "", "a `file` holding the password of --queue-user (or set "+envQueuePassword+")")
	fs.DurationVar(&q.Wait, "queue-wait", 5*time.Minute, "how long to wait for an unreachable --queue, at start or when the connection drops, before giving up (0: no limit)")
}

// apply fills the queue's secrets from the files named by flags, else
// from the environment.
func (s queueSecrets) apply(q *batch.Queue, getenv func(string) string) error {
	if q.URL == "" && (q.Creds != "" || q.User != "" || s.tokenFile != "" || s.passwordFile != "") {
		return usagef("--queue-creds, --queue-user, --queue-token-file and --queue-password-file need --queue")
	}
	if q.URL == "" {
		return nil
	}
	if q.Wait < 0 {
		return usagef("--queue-wait cannot be negative")
	}
	if q.User == "" {
		q.User = getenv(envQueueUser)
	}
	q.Token, q.Password = getenv(envQueueToken), getenv(envQueuePassword)
	var err error
	if s.tokenFile != "" {
		if q.Token, err = readSecret("--queue-token-file", s.tokenFile); err != nil {
			return err
		}
	}
	if s.passwordFile != "" {
		if q.Password, err = readSecret("--queue-password-file", s.passwordFile); err != nil {
			return err
		}
	}
	if q.Password != "" && q.User == "" {
		return usagef("a password for --queue needs a user: --queue-user NAME or %s", envQueueUser)
	}
	return nil
}

// readSecret reads a one-line secret from a file.
func readSecret(flagName, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flagName, err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" || strings.ContainsAny(s, "\r\n") {
		return "", fmt.Errorf("%s: %s must hold the secret alone, on one line", flagName, path)
	}
	return s, nil
}

// warnSecretInURL says that a secret in --queue shows in the process list.
func warnSecretInURL(w io.Writer, url string) {
	if batch.HasSecret(url) {
		fmt.Fprintf(w, "swe-adept: the --queue URL holds a password or token, which every user of this machine can read in the process list; "+
			"set %s (or %s and %s), or use --queue-token-file or --queue-password-file, instead\n", envQueueToken, envQueueUser, envQueuePassword)
	}
}

// ownLog sends this process's log to a file of its own, so the processes
// of a batch on one machine do not interleave in the shared log, and says
// where it is.
func ownLog(kind string, stderr io.Writer) (restore func()) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, "swe-adept", fmt.Sprintf("%s-%d.log", kind, os.Getpid()))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			f, err = os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "swe-adept: cannot open this %s's log (%v); logging to the shared one\n", kind, err)
		return func() {}
	}
	prev := slog.Default()
	level := slog.LevelInfo
	if prev.Enabled(context.Background(), slog.LevelDebug) {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})))
	fmt.Fprintf(stderr, "swe-adept: this %s logs to %s\n", kind, path)
	return func() {
		slog.SetDefault(prev)
		_ = f.Close()
	}
}
