package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

func init() {
	register(&command{
		name:    "index",
		summary: "index a repository's code units and print what was found",
		usage:   "[--repo DIR] [--json | --stats] [--no-cache]",
		flags:   indexFlags,
	})
}

// indexFlags declares the flags of index and returns the command.
func indexFlags(fs *flag.FlagSet) func(context.Context, []string, streams) error {
	repo := fs.String("repo", ".", "repository `dir` to index")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures")
	stats := fs.Bool("stats", false, "print the figures with throughput, for humans")
	noCache := fs.Bool("no-cache", false, "neither read nor write the index cache")
	return func(ctx context.Context, pos []string, std streams) error {
		stdout, stderr := std.out, std.errFile()
		if len(pos) > 0 {
			return usagef("unexpected argument %q (the repository is given with --repo)", pos[0])
		}
		if *asJSON && *stats {
			return usagef("--json and --stats do not go together")
		}
		if err := checkDir("--repo", *repo); err != nil {
			return err
		}
		opts := index.Options{NoCache: *noCache, Logger: slog.Default()}
		var prog *progressLine
		if isTerminal(stderr) {
			prog = &progressLine{w: stderr, label: "indexing"}
			opts.Progress = prog.update
		}
		ix, err := index.Build(ctx, *repo, opts)
		prog.clear()
		if err != nil {
			return err
		}
		st := ix.Stats()
		switch {
		case *asJSON:
			return printIndexJSON(stdout, st)
		case *stats:
			printIndexStats(stdout, ix, st)
		default:
			printIndexSummary(stdout, ix.Root(), st)
		}
		return nil
	}
}

func printIndexJSON(w io.Writer, st index.Stats) error {
	if st.Skipped == nil {
		st.Skipped = map[string]int{}
	}
	if st.Languages == nil {
		st.Languages = map[string]int{}
	}
	enc := json.NewEncoder(jsonOut(w))
	if err := enc.Encode(st); err != nil {
		return fmt.Errorf("print index stats: %w", err)
	}
	return nil
}

func printIndexSummary(w io.Writer, root string, st index.Stats) {
	w = textOut(w) // file names and problems are the repository's
	fmt.Fprintf(w, "indexed %s\n", root)
	if st.Files == 0 {
		fmt.Fprintf(w, "  no source files found (indexed languages: Python, Go)\n")
	}
	fmt.Fprintf(w, "  files    %d (%s)\n", st.Files, joinCounts(st.Languages))
	fmt.Fprintf(w, "  units    %d, edges %d\n", st.Units, st.Edges)
	fmt.Fprintf(w, "  calls    %d resolved, %d unresolved (%s resolved)\n",
		st.ResolvedCalls, st.UnresolvedCalls, percent(st.ResolvedCalls, st.ResolvedCalls+st.UnresolvedCalls))
	if len(st.Degraded) > 0 {
		fmt.Fprintf(w, "  indexed with problems: %s\n", joinCounts(st.Degraded))
	}
	if len(st.Skipped) > 0 {
		fmt.Fprintf(w, "  skipped  %s\n", joinCounts(st.Skipped))
	}
	fmt.Fprintf(w, "  cache    %s, %d files parsed, %.2f s\n", st.Cache, st.Parsed, st.Seconds)
}

func printIndexStats(w io.Writer, ix *index.Index, st index.Stats) {
	printIndexSummary(w, ix.Root(), st)
	w = textOut(w)
	var bytes int64
	for _, f := range ix.Files() {
		bytes += f.Size
	}
	secs := st.Seconds
	if secs <= 0 {
		secs = 1e-9
	}
	fmt.Fprintf(w, "  lines    %d (%.0f lines/s)\n", st.Lines, float64(st.Lines)/secs)
	fmt.Fprintf(w, "  size     %.1f MB (%.1f MB/s)\n", float64(bytes)/1e6, float64(bytes)/1e6/secs)
}

func joinCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func percent(a, b int) string {
	if b == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}
