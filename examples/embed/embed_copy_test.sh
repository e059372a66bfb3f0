#!/bin/sh
# host.embed_copy: the skeleton application (embed_copy.c) copies files of several sizes on the
# engine `auto` picks here (and `host` by name); each copy must be byte-identical and the graph's
# output `copied` must say how many bytes it copied.
#   usage: embed_copy_test.sh URINGC_EMBED_COPY
set -eu
app=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for size in 0 1 65536 300007; do
	head -c "$size" /dev/urandom >"$dir/in"
	for engine in auto host; do
		rm -f "$dir/out"
		status=0
		"$app" "$engine" "$dir/in" "$dir/out" >"$dir/log" 2>&1 || status=$?
		if [ "$status" -ne 0 ]; then
			cat "$dir/log"
			echo "FAIL: $engine, $size bytes: exit status $status"
			exit 1
		fi
		grep -q "engine: status 0, copied $size of $size bytes" "$dir/log" || {
			cat "$dir/log"
			echo "FAIL: $engine, $size bytes: no line saying all $size bytes were copied"
			exit 1
		}
		cmp "$dir/in" "$dir/out" || {
			echo "FAIL: $engine, $size bytes: the copy differs"
			exit 1
		}
	done
	echo "ok: $size bytes on $(grep -o '^[a-z]* engine' "$dir/log")"
done
# Wrong usage is a usage error, not a crash.
if "$app" sideways "$dir/in" "$dir/out" 2>"$dir/log"; then
	echo "FAIL: an unknown engine was accepted"
	exit 1
fi
grep -q "usage:" "$dir/log"
echo "PASS"
