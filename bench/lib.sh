# Shared by run.sh and run-e2e.sh; sourced, not run.
#
# BENCHSTAT is the benchstat command: the one on PATH, else the one in
# $GOPATH/bin, installed there if missing.
#
# MEDIAN is an awk function, median(key), over values collected as
# val[key, 1..cnt[key]]; it returns -1 for a key with no values. Prepend it
# to an awk program: awk "$MEDIAN"'...'.

BENCHSTAT=$(command -v benchstat || true)
if [ -z "$BENCHSTAT" ]; then
	BENCHSTAT="$(go env GOPATH)/bin/benchstat"
	if [ ! -x "$BENCHSTAT" ]; then
		echo "installing benchstat..." >&2
		go install golang.org/x/perf/cmd/benchstat@latest
	fi
fi

MEDIAN='
function median(key,   n, i, j, t, a) {
	n = cnt[key]
	if (n == 0) return -1
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
'
