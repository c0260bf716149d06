#!/bin/sh
# Runs the side-by-side codec benchmarks of mcpgen, go-sdk and mcp-go and
# prints them with benchstat, one column per implementation, then checks the
# success bars. The end-to-end benchmark (BenchmarkE2E) has its own script,
# run-e2e.sh.
#
#   ./run.sh            # -count 6
#   ./run.sh 10         # -count 10
#   BENCH=Decode ./run.sh 3   # only benchmarks matching Decode
#
# The raw `go test` output is kept in $OUT (default /tmp/mcpgen-bench.txt).
# BenchmarkEntryPoints (mcp.Unmarshal/mcp.Marshal against encoding/json on
# the same generated types) follows, in $OUT.entry, unless BENCH is set.
set -eu

COUNT=${1:-${COUNT:-6}}
ENTRY=${BENCH:+no}
BENCH=${BENCH:-'^Benchmark(Decode|Validate|DecodeValidate|Encode)$'}
OUT=${OUT:-/tmp/mcpgen-bench.txt}

cd "$(dirname "$0")"

. ./lib.sh

go test -run '^$' -bench "$BENCH" -benchmem -count "$COUNT" >"$OUT"
"$BENCHSTAT" -col /impl "$OUT"

# Success bars (medians over the runs):
#   mcpgen decode+validate of toolsList >= 5x faster than go-sdk's decode,
#   with <= 1/10 of its allocations; mcpgen encode >= 5x faster than go-sdk's.
awk "$MEDIAN"'
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "ns/op") { k = name " ns"; val[k, ++cnt[k]] = $i }
		if ($(i+1) == "allocs/op") { k = name " allocs"; val[k, ++cnt[k]] = $i }
	}
}
function bar(label, ours, theirs, want,   r) {
	if (ours <= 0 || theirs < 0) { printf "%-64s n/a (not run)\n", label; return }
	r = theirs / ours
	printf "%-64s %6.2fx  (need >= %gx)  %s\n", label, r, want, (r >= want ? "MET" : "MISSED")
}
END {
	print ""
	print "success bars (medians):"
	bar("toolsList: gosdk decode ns / mcpgen decode+validate ns", median("BenchmarkDecodeValidate/toolsList/impl=mcpgen ns"), median("BenchmarkDecode/toolsList/impl=gosdk ns"), 5)
	bar("toolsList: gosdk decode allocs / mcpgen decode+validate allocs", median("BenchmarkDecodeValidate/toolsList/impl=mcpgen allocs"), median("BenchmarkDecode/toolsList/impl=gosdk allocs"), 10)
	bar("toolsList: gosdk encode ns / mcpgen encode ns", median("BenchmarkEncode/toolsList/impl=mcpgen ns"), median("BenchmarkEncode/toolsList/impl=gosdk ns"), 5)
	bar("callRequest: gosdk encode ns / mcpgen encode ns", median("BenchmarkEncode/callRequest/impl=mcpgen ns"), median("BenchmarkEncode/callRequest/impl=gosdk ns"), 5)
	bar("callResult: gosdk encode ns / mcpgen encode ns", median("BenchmarkEncode/callResult/impl=mcpgen ns"), median("BenchmarkEncode/callResult/impl=gosdk ns"), 5)
}' "$OUT"

[ "${ENTRY:-yes}" = no ] && exit 0
go test -run '^$' -bench '^BenchmarkEntryPoints$' -benchmem -count "$COUNT" >"$OUT.entry"
echo
"$BENCHSTAT" -col /path "$OUT.entry"
awk "$MEDIAN"'
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") { val[name, ++cnt[name]] = $i }
}
END {
	print ""
	print "fast path (medians): encoding/json ns / mcp.Unmarshal or mcp.Marshal ns"
	d = median("BenchmarkEntryPoints/decodeValidate/toolsList/path=mcp")
	e = median("BenchmarkEntryPoints/encode/toolsList/path=mcp")
	if (d > 0) printf "  decode+validate toolsList: %.2fx\n", median("BenchmarkEntryPoints/decodeValidate/toolsList/path=encoding-json") / d
	if (e > 0) printf "  encode toolsList:          %.2fx\n", median("BenchmarkEntryPoints/encode/toolsList/path=encoding-json") / e
}' "$OUT.entry"
