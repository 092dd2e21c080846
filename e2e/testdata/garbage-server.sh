#!/bin/sh
# A broken stdio server for e2e/bounds_test.go: it never reads its stdin, and writes to
# stdout what is not JSON-RPC. $1 says what:
#   flood  lines that start like JSON and are not, as fast as it can
#   some   900 such lines, then nothing
#   text   100 MB of text lines, then nothing
# $2 marks its processes, for the test to find any that outlive the client.
case "$1" in
flood) while :; do echo '{garbage, not JSON-RPC'; done ;;
some)
	i=0
	while [ $i -lt 900 ]; do echo '{garbage, not JSON-RPC'; i=$((i + 1)); done
	;;
text) yes 'a line of text that is not JSON-RPC, as a server that logs to stdout by mistake writes' | head -c 100000000 ;;
esac
exec sleep "$2"
