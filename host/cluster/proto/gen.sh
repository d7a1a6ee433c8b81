#!/bin/sh
# Regenerates host/cluster/internal/clusterpb from proto/honmaster_cluster.proto (see
# plugins/sdk/proto/gen.sh for the tool versions). Generated code is
# committed because CI has no protoc.
set -eu
cd "$(dirname "$0")/.."
PATH="$PATH:$(go env GOPATH)/bin:/root/go/bin"
export PATH
protoc --proto_path=proto --go_out=internal/clusterpb --go_opt=paths=source_relative proto/honmaster_cluster.proto
