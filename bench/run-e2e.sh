#!/bin/sh
# Runs the end-to-end benchmark (sequential tools/call over Streamable HTTP
# on 127.0.0.1, client and server in this process) for mcpgen, go-sdk,
# mcp-go and the bare net/http floor, prints it with benchstat, one column
# per implementation, then checks the success bar against mcp-go.
#
#   ./run-e2e.sh            # -count 8
#   ./run-e2e.sh 12         # -count 12
#   BENCHTIME=2s ./run-e2e.sh
#
# The raw `go test` output is kept in $OUT (default /tmp/mcpgen-e2e.txt).
# The machine's load average is printed before and after: on a shared
# machine, numbers taken under load are only comparable within one run.
set -eu

COUNT=${1:-${COUNT:-8}}
BENCHTIME=${BENCHTIME:-1s}
OUT=${OUT:-/tmp/mcpgen-e2e.txt}

cd "$(dirname "$0")"

. ./lib.sh

echo "before: $(uptime)"
go test -run '^$' -bench 'E2E' -benchmem -benchtime "$BENCHTIME" -count "$COUNT" >"$OUT"
echo "after:  $(uptime)"
echo
"$BENCHSTAT" -col /impl "$OUT"

# Success bar (medians over the runs): mcpgen's calls/s at least 2x
# mcp-go's, and mcpgen's B/op at most a quarter of mcp-go's.
awk "$MEDIAN"'
/^BenchmarkE2E\// {
	name = $1; sub(/-[0-9]+$/, "", name); sub(/.*impl=/, "", name)
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "calls/s") { k = name " calls"; val[k, ++cnt[k]] = $i }
		if ($(i+1) == "B/op") { k = name " bytes"; val[k, ++cnt[k]] = $i }
		if ($(i+1) == "allocs/op") { k = name " allocs"; val[k, ++cnt[k]] = $i }
	}
}
END {
	print ""
	print "medians:"
	printf "  %-8s %12s %12s %12s\n", "impl", "calls/s", "B/op", "allocs/op"
	split("mcpgen gosdk mcpgo floor", impls, " ")
	for (i = 1; i <= 4; i++) {
		m = impls[i]
		if (cnt[m " calls"] > 0)
			printf "  %-8s %12.0f %12.0f %12.0f\n", m, median(m " calls"), median(m " bytes"), median(m " allocs")
	}
	ours = median("mcpgen calls"); theirs = median("mcpgo calls")
	ob = median("mcpgen bytes"); tb = median("mcpgo bytes")
	print ""
	print "success bar (medians):"
	if (ours <= 0 || theirs <= 0 || ob <= 0 || tb <= 0) { print "  n/a (not run)"; exit }
	r = ours / theirs
	printf "  %-44s %6.2fx  (need >= 2x)    %s\n", "calls/s: mcpgen / mcpgo", r, (r >= 2 ? "MET" : "MISSED")
	r = ob / tb
	printf "  %-44s %6.3f   (need <= 0.25)  %s\n", "B/op:    mcpgen / mcpgo", r, (r <= 0.25 ? "MET" : "MISSED")
}' "$OUT"
