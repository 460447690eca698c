#!/bin/sh
# Runs "$@" (node and its arguments) in the network and mount namespace `unshare -nm` made:
# only loopback is up, /etc/hosts and /etc/resolv.conf come from "$1", and ./traps.cjs listens.
# First the control (./leak-probe.cjs), then the command, each under its own phase.
set -e
dir=$1
shift
node=$1
ip link set lo up
mount --bind "$dir/hosts" /etc/hosts
mount --bind "$dir/resolv.conf" /etc/resolv.conf
echo control > "$dir/phase"
"$node" "$(dirname "$0")/traps.cjs" "$dir" &
traps=$!
# The traps hold the caller's output open: they end with this script, however it ends.
trap 'kill "$traps" 2>/dev/null' EXIT
waited=0
while [ ! -e "$dir/ready" ]; do
  waited=$((waited + 1))
  if [ "$waited" -gt 400 ]; then echo "netns/run.sh: the traps did not start within 20 s" >&2; exit 70; fi
  sleep 0.05
done
"$node" "$(dirname "$0")/leak-probe.cjs"
echo test > "$dir/phase"
set +e
"$@"
exit $?
