package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/swe-adept/swe-adept/agent/localize"
	"github.com/swe-adept/swe-adept/eval/batch"
	"github.com/swe-adept/swe-adept/sandbox"
)

func init() {
	register(&command{
		name:    "batch",
		summary: "run many SWE-bench-style instances headless and in parallel; resumable",
		usage: "--instances FILE.jsonl --repos DIR --out DIR [--workers N] [--model NAME] [--localize-model NAME]\n" +
			"         [--script-localize F --script-resolve F] [--max-cost D] [--max-iterations N] [--timeout 30m]\n" +
			"         [--localize-only] [--only ID,...] [--limit N] [--keep-work]\n" +
			"         [--queue nats://HOST:PORT [--queue-creds FILE | --queue-token-file FILE | --queue-user NAME --queue-password-file FILE]\n" +
			"                                   [--queue-wait 5m] [--ack-wait 2m] [--max-deliver 3]]",
		flags:  withFlags(declareBatchFlags, runBatch),
		noRepo: true,
	})
}

type batchFlags struct {
	instances, repos, out, only string
	limit, workers              int
	localizeOnly, keepWork      bool
	timeout                     time.Duration
	agent                       batch.AgentRunner
	models                      *modelFlags
	sandbox                     *sandboxFlags
	queue                       batch.Queue
	secrets                     queueSecrets
}

// declareBatchFlags puts the flags of batch on fs, bound to f.
func declareBatchFlags(fs *flag.FlagSet, f *batchFlags) {
	fs.StringVar(&f.instances, "instances", "", "SWE-bench-style instances `file`, one JSON object a line")
	fs.StringVar(&f.repos, "repos", "", "`folder` holding each repository as OWNER/NAME (a clone or a bare mirror)")
	fs.StringVar(&f.out, "out", "", "output `folder`: runs/, preds.jsonl, preds.json, summary.json; rerun to resume")
	fs.IntVar(&f.workers, "workers", 1, "instances worked on at once")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Minute, "time limit per instance (0: none)")
	fs.BoolVar(&f.localizeOnly, "localize-only", false, "only localize: write loc_outputs.jsonl and score Acc@k where gold is known")
	fs.BoolVar(&f.keepWork, "keep-work", false, "keep each instance's checkout under OUT/work/")
	fs.StringVar(&f.only, "only", "", "comma-separated instance `ids` to run")
	fs.IntVar(&f.limit, "limit", 0, "run at most `N` instances (0: all)")
	queueFlags(fs, &f.queue, &f.secrets, "run the instances on 'swe-adept worker' processes that reach it")
	fs.DurationVar(&f.queue.AckWait, "ack-wait", batch.DefaultAckWait, "with --queue: how long a silent worker keeps an instance before another gets it")
	fs.IntVar(&f.queue.MaxDeliver, "max-deliver", batch.DefaultMaxDeliver, "with --queue: how many workers may start an instance and stop without a result before it is recorded as failed")
	a := &f.agent
	f.models = addModelFlags(fs, false)
	f.sandbox = addSandboxFlags(fs)
	fs.StringVar(&a.ScriptLocalize, "script-localize", "", "play a localization transcript `file` (or a folder of <instance id>.json)")
	fs.StringVar(&a.ScriptResolve, "script-resolve", "", "play a resolution transcript `file` (or a folder of <instance id>.json)")
	fs.Float64Var(&a.MaxCost, "max-cost", 0, "dollars per instance (0: no limit)")
	fs.IntVar(&a.MaxTokens, "max-tokens", 0, "tokens per instance (0: no limit)")
	fs.IntVar(&a.MaxIterations, "max-iterations", 0, "resolution model calls per instance (0: the default)")
	fs.IntVar(&a.LocalizeMaxIterations, "localize-max-iterations", localize.DefaultMaxIterations, "localization search turns per instance")
}

// checkBatchFlags checks the parsed flags together and completes them
// from the environment.
func checkBatchFlags(f batchFlags, pos []string, getenv func(string) string) (batchFlags, error) {
	var err error
	switch {
	case len(pos) > 0:
		return f, usagef("unexpected argument %q", pos[0])
	case f.instances == "" || f.repos == "" || f.out == "":
		return f, usagef("--instances, --repos and --out are required")
	case f.workers < 1:
		return f, usagef("--workers must be at least 1, not %d", f.workers)
	case f.timeout < 0 || f.agent.MaxCost < 0 || f.limit < 0:
		return f, usagef("--timeout, --max-cost and --limit cannot be negative")
	case f.queue.AckWait < time.Second || f.queue.MaxDeliver < 1:
		return f, usagef("--ack-wait must be at least 1s and --max-deliver at least 1")
	}
	if err := checkDir("--repos", f.repos); err != nil {
		return f, err
	}
	if err := f.secrets.apply(&f.queue, getenv); err != nil {
		return f, err
	}
	if f.agent.Sandbox, err = f.sandbox.options(); err != nil {
		return f, err
	}
	f.agent.CommandOutput = int(f.sandbox.output)
	if f.agent.Models, err = f.models.settings(); err != nil {
		return f, err
	}
	if err := sandbox.CheckPassEnv(f.agent.Sandbox.PassEnv, f.agent.Models.Confidential().Env); err != nil {
		return f, usagef("%v", err)
	}
	return f, nil
}

// checkBatchSandbox says once, before the first instance, whether the
// instances' commands can be confined: strict mode stops here; auto mode
// warns that, with nobody to approve them, no command will run unconfined.
func checkBatchSandbox(o sandbox.Options, localizeOnly bool, stderr io.Writer) error {
	if localizeOnly {
		return nil
	}
	why, err := sandbox.Unconfined(o)
	if why != "" {
		fmt.Fprintf(stderr, "swe-adept: WARNING: the agents' commands are NOT confined (%s); no command will run, since nobody can approve one in a batch (--sandbox off runs them unconfined)\n",
			strings.Join(strings.Fields(why), " "))
	}
	return err
}

func runBatch(ctx context.Context, parsed *batchFlags, pos []string, std streams) error {
	f, err := checkBatchFlags(*parsed, pos, os.Getenv)
	if err != nil {
		return err
	}
	list, bad, err := loadInstances(f.instances, f.only, f.limit)
	if err != nil {
		return err
	}
	if err := checkBatchSandbox(f.agent.Sandbox, f.localizeOnly, std.err); err != nil {
		return err
	}
	cfg := batch.Config{Instances: list, BadLines: bad, ReposDir: f.repos, OutDir: f.out, Workers: f.workers,
		Timeout: f.timeout, LocalizeOnly: f.localizeOnly, KeepWork: f.keepWork, Progress: std.err, TTY: isTerminal(std.errFile())}
	if cfg.Runner, err = batchRunner(f); err != nil {
		return err
	}
	var sum *batch.Summary
	var runErr error
	if f.queue.URL != "" {
		warnSecretInURL(std.err, f.queue.URL)
		defer ownLog("coordinator", std.err)()
		sum, runErr = batch.RunQueued(ctx, cfg, f.queue, batch.RunnerSpec{LocalizeOnly: f.localizeOnly, Agent: f.agent})
	} else {
		sum, runErr = batch.Run(ctx, cfg)
	}
	if sum != nil {
		enc := json.NewEncoder(jsonOut(std.out))
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	}
	if errors.Is(runErr, context.Canceled) {
		return fmt.Errorf("%w; run the same command again to resume", runErr)
	}
	return runErr
}

func batchRunner(f batchFlags) (batch.Runner, error) {
	spec := batch.RunnerSpec{LocalizeOnly: f.localizeOnly, Agent: f.agent}
	if f.localizeOnly {
		if f.agent.ScriptResolve != "" {
			return nil, usagef("--script-resolve has no use with --localize-only")
		}
		return spec.Runner(), nil
	}
	if err := f.agent.Check(); err != nil {
		return nil, scriptOrModelError("--script-resolve", f.agent.ScriptResolve, err)
	}
	return spec.Runner(), nil
}
