#!/usr/bin/env bash
# Split one manifest over N shards with GNU parallel. On one machine the shards run side by side;
# with --sshlogin they spread over hosts that see the same paths (shared storage):
#   parallel --sshlogin 4/host1,4/host2 --workdir . slomo batch jobs.json --jobs 1 --shard {}/4 ::: 1 2 3 4
# Every shard prints JSON Lines; --tag prefixes each line with its shard number.
#   Samples/batch/gnu-parallel.sh MANIFEST SHARDS [slomo]
set -euo pipefail
manifest=${1:?manifest}; shards=${2:-2}; slomo=${3:-slomo}
seq 1 "$shards" | parallel --will-cite --halt never --line-buffer \
  "$slomo" batch "$manifest" --jobs 1 --progress none --shard "{}/$shards"
