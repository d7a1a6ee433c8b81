#!/bin/sh
# Regenerates host/reports/internal/reportspb from host/reports/proto/*.proto
# (see plugins/sdk/proto/gen.sh for the tool versions). Generated code is
# committed because CI has no protoc.
set -eu
cd "$(dirname "$0")/.."
PATH="$PATH:$(go env GOPATH)/bin:/root/go/bin"
export PATH
protoc --proto_path=proto --go_out=internal/reportspb --go_opt=paths=source_relative proto/reports_records.proto
