package cli

import (
	"context"
	"flag"
	"os"

	"github.com/swe-adept/swe-adept/eval/batch"
)

func init() {
	register(&command{
		name:    "worker",
		summary: "run the instances of batches started with 'batch --queue', on this machine",
		usage:   "--queue nats://HOST:PORT --repos DIR [--workers N] [--work DIR] [--name NAME] [--queue-creds FILE]",
		run:     runWorker,
		flags:   declareOnly(declareWorkerFlags),
		noRepo:  true,
	})
}

// declareWorkerFlags puts the flags of worker on fs, bound to f.
func declareWorkerFlags(fs *flag.FlagSet, c *batch.WorkerConfig) {
	queueFlags(fs, &c.Queue, "where the batches are")
	fs.StringVar(&c.ReposDir, "repos", "", "`folder` holding each repository as OWNER/NAME (a clone or a bare mirror)")
	fs.IntVar(&c.Workers, "workers", 1, "instances worked on at once")
	fs.StringVar(&c.WorkDir, "work", "", "`folder` for checkouts and run folders while an instance runs (default: under the system's temporary folder)")
	fs.StringVar(&c.Name, "name", "", "this worker's `name` in records and logs (default: host name and process id)")
}

func parseWorkerFlags(args []string) (batch.WorkerConfig, error) {
	var c batch.WorkerConfig
	fs := newFlags("worker")
	declareWorkerFlags(fs, &c)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return c, err
	}
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
	return c, nil
}

// runWorker serves every batch on the queue until interrupted; the
// instances it is running go back on the queue for other workers.
func runWorker(ctx context.Context, args []string) error {
	c, err := parseWorkerFlags(args)
	if err != nil {
		return err
	}
	c.Progress = os.Stderr
	return batch.Work(ctx, c)
}
