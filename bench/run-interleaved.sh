#!/bin/sh
# Runs the end-to-end benchmarks interleaved: ROUNDS rounds, each running
# every implementation of every benchmark once, one after the other, so
# that a shared machine's drifting speed (±20% within minutes here) hits
# all implementations alike. Prints benchstat tables, one column per
# implementation, then the medians and the success bars.
#
#   ./run-interleaved.sh          # 8 rounds
#   ./run-interleaved.sh 12
#   BENCHTIME=2s ./run-interleaved.sh
#
# Raw output: $OUT (default /tmp/mcpgen-interleaved.txt), in go test
# format (benchstat reads it).
set -eu

ROUNDS=${1:-${ROUNDS:-8}}
BENCHTIME=${BENCHTIME:-1s}
OUT=${OUT:-/tmp/mcpgen-interleaved.txt}

cd "$(dirname "$0")"
. ./lib.sh

BIN=$(mktemp -d)/bench.test
go test -c -o "$BIN" .

# benchmark/impl pairs, each run on its own
RUNS="E2E/toolsCall/impl=mcpgen E2E/toolsCall/impl=gosdk E2E/toolsCall/impl=mcpgo E2E/toolsCall/impl=floor
LegacySession/toolsCall/impl=mcpgen LegacySession/toolsCall/impl=gosdk LegacySession/toolsCall/impl=mcpgo
Stdio/toolsCall/impl=mcpgen Stdio/toolsCall/impl=floor
List/tools1000/impl=mcpgen List/tools1000/impl=floor"

echo "before: $(uptime)"
: >"$OUT"
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	for r in $RUNS; do
		"$BIN" -test.run '^$' -test.bench "^Benchmark${r%%/*}\$/${r#*/}\$" -test.benchmem -test.benchtime "$BENCHTIME" >>"$OUT" 2>&1 || true
	done
	i=$((i + 1))
done
echo "after:  $(uptime)"
echo
grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok\)' "$OUT" | grep -q . || true
"$BENCHSTAT" -col /impl "$OUT"

awk "$MEDIAN"'
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "calls/s") { val[name " calls", ++cnt[name " calls"]] = $i }
		if ($(i+1) == "ns/op") { val[name " ns", ++cnt[name " ns"]] = $i }
		if ($(i+1) == "B/op") { val[name " bytes", ++cnt[name " bytes"]] = $i }
	}
}
function ratio(a, b) { return (b > 0 && a > 0) ? a / b : -1 }
END {
	e = "BenchmarkE2E/toolsCall/impl="; l = "BenchmarkLegacySession/toolsCall/impl="
	s = "BenchmarkStdio/toolsCall/impl="; t = "BenchmarkList/tools1000/impl="
	printf "\nmedians over the rounds\n"
	printf "HTTP tools/call, 2026-07-28: mcpgen %.0f calls/s, floor %.0f: %.2fx the floor; bytes %.2fx the floor\n",
		median(e "mcpgen calls"), median(e "floor calls"), ratio(median(e "mcpgen calls"), median(e "floor calls")), ratio(median(e "mcpgen bytes"), median(e "floor bytes"))
	printf "HTTP tools/call, 2025-11-25 session: mcpgen %.0f calls/s, mcp-go %.0f, go-sdk %.0f: %.2fx mcp-go; bytes %.2fx mcp-go\n",
		median(l "mcpgen calls"), median(l "mcpgo calls"), median(l "gosdk calls"), ratio(median(l "mcpgen calls"), median(l "mcpgo calls")), ratio(median(l "mcpgen bytes"), median(l "mcpgo bytes"))
	printf "stdio tools/call: mcpgen %.0f ns, floor %.0f ns\n", median(s "mcpgen ns"), median(s "floor ns")
	printf "1,000-tool tools/list: mcpgen %.0f ns, floor %.0f ns: %.2fx the floor\n",
		median(t "mcpgen ns"), median(t "floor ns"), ratio(median(t "floor ns"), median(t "mcpgen ns"))
}' "$OUT"
