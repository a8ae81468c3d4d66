package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/swe-adept/swe-adept/agent/replay"
	"github.com/swe-adept/swe-adept/eval/export"
	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

func init() {
	register(&command{
		name:    "export",
		summary: "write a saved run as an SWE-agent trajectory, LocAgent locations, an SWE-bench prediction or a replayable script",
		usage:   "RUN --format " + strings.Join(export.Formats, "|") + " [--repo DIR] [--out FILE] [--instance-id ID] [--model-name NAME]",
		flags:   exportFlags(),
	})
}

// exportFlags declares the flags of export and returns the command.
func exportFlags() declare {
	return func(fs *flag.FlagSet) func(context.Context, []string, streams) error {
		repo := fs.String("repo", ".", "repository `dir` whose runs folder holds RUN")
		format := fs.String("format", "", "output format: "+strings.Join(export.Formats, ", "))
		out := fs.String("out", "", "write to `file` instead of standard output")
		var opts export.Options
		fs.StringVar(&opts.InstanceID, "instance-id", "", "instance id to record (default: the batch's instance, else the run id)")
		fs.StringVar(&opts.Model, "model-name", "", "model_name_or_path of a swe-bench prediction (default: the run's model)")
		return func(ctx context.Context, pos []string, std streams) error {
			switch {
			case len(pos) != 1:
				return usagef("give exactly one run (an id or a folder)")
			case !validFormat(*format):
				return usagef("--format must be one of %s, not %q", strings.Join(export.Formats, ", "), *format)
			}
			opts.Format = *format
			dir, err := replay.FindRun(ctx, *repo, pos[0])
			if err != nil {
				return err
			}
			r, loadErr := export.Load(dir)
			if r == nil {
				return loadErr
			}
			if loadErr != nil {
				fmt.Fprintf(textOut(std.err), "swe-adept export: %s is damaged; exporting what could be read: %v\n", dir, loadErr)
			}
			if r.EventsErr != nil {
				fmt.Fprintf(textOut(std.err), "swe-adept export: %v\n", r.EventsErr)
			}
			var buf bytes.Buffer
			if err := export.Write(&buf, r, opts); err != nil {
				return err
			}
			if *out == "" {
				_, err = jsonOut(std.out).Write(buf.Bytes()) // every format is JSON
				return err
			}
			return atomicfile.Write(*out, buf.Bytes())
		}
	}
}

func validFormat(f string) bool {
	for _, x := range export.Formats {
		if f == x {
			return true
		}
	}
	return false
}
