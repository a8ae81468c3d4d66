#!/bin/sh
# Unpacks the npm packages the index benchmarks read as TypeScript and
# JavaScript corpora: rxjs and effect ship their TypeScript sources,
# webpack its CommonJS lib/. Usage: scripts/npm-corpora.sh [DIR]
# (default $SWE_ADEPT_NPM, else $TMPDIR/swe-adept-npm).
set -eu
dir=${1:-${SWE_ADEPT_NPM:-${TMPDIR:-/tmp}/swe-adept-npm}}
mkdir -p "$dir"
cd "$dir"
for spec in rxjs@7.8.1 effect@3.10.0 webpack@5.95.0; do
	name=${spec%@*}
	[ -d "$name/package" ] && continue
	tgz=$(npm pack --silent "$spec")
	mkdir -p "$name"
	tar xzf "$tgz" -C "$name"
	rm -f "$tgz"
done
echo "corpora in $dir; run: SWE_ADEPT_NPM=$dir go test ./index ./index/parse -run '^\$' -bench 'ParseOnly|BuildCold|BuildWarm|BuildIncremental' -benchtime 5x"
