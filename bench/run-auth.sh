#!/bin/sh
# Runs BenchmarkE2EAuth (sequential tools/call over Streamable HTTP on
# 127.0.0.1, mcpgen client and server in this process) without
# authorization and with a JWT verified on every request, interleaved:
# each round runs the two variants one after the other, in alternating
# order, so that the machine's load drifts over both alike. It prints the
# benchstat table, then the medians and the bar: with the JWT, at least
# 80% of the calls per second without (verification under 20%).
#
#   ./run-auth.sh            # 20 rounds
#   ./run-auth.sh 40         # 40 rounds
#   BENCHTIME=2s ./run-auth.sh
#
# The raw benchmark output is kept in $OUT (default /tmp/mcpgen-auth.txt).
set -eu

ROUNDS=${1:-${ROUNDS:-20}}
BENCHTIME=${BENCHTIME:-1s}
OUT=${OUT:-/tmp/mcpgen-auth.txt}

cd "$(dirname "$0")"

. ./lib.sh

BIN=$(mktemp -d)/bench.test
trap 'rm -rf "$(dirname "$BIN")"' EXIT
go test -c -o "$BIN" .

# run runs one variant once; a failed run prints its output and stops
# the script (a result line is only kept from a run that passed).
run() {
	if ! "$BIN" -test.run '^$' -test.bench "^BenchmarkE2EAuth/toolsCall/auth=$1\$" -test.benchmem \
		-test.benchtime "$BENCHTIME" -test.count 1 >"$BIN.out" 2>&1; then
		cat "$BIN.out" >&2
		exit 1
	fi
	grep '^Benchmark\|^goos\|^goarch\|^pkg\|^cpu' "$BIN.out"
}

echo "before: $(uptime)"
: >"$OUT"
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	if [ $((i % 2)) -eq 0 ]; then
		run none >>"$OUT"; run jwt >>"$OUT"
	else
		run jwt >>"$OUT"; run none >>"$OUT"
	fi
	i=$((i + 1))
done
echo "after:  $(uptime)"
echo
"$BENCHSTAT" -col /auth "$OUT"

# The bar, on medians over the rounds, and the median of the per-round
# ratios (each round's two runs saw about the same load).
awk "$MEDIAN"'
/^BenchmarkE2EAuth/ {
	v = ($1 ~ /auth=jwt/) ? "jwt" : "none"
	for (i = 3; i < NF; i++) if ($(i+1) == "calls/s") { k = v; val[k, ++cnt[k]] = $i; last[v] = $i }
	if (last["jwt"] != "" && last["none"] != "") {
		val["ratio", ++cnt["ratio"]] = last["jwt"] / last["none"]; delete last
	}
}
END {
	none = median("none"); jwt = median("jwt"); r = median("ratio")
	print ""
	printf "median calls/s: auth=none %.0f, auth=jwt %.0f (%d rounds)\n", none, jwt, cnt["none"]
	printf "auth=jwt / auth=none: %.3f (ratio of medians), %.3f (median of per-round ratios)\n", jwt / none, r
	printf "bar: verification costs under 20%% of calls/s (ratio >= 0.80): %s\n", ((jwt / none >= 0.8 && r >= 0.8) ? "MET" : "MISSED")
}' "$OUT"
