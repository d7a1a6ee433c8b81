#!/bin/sh
# Regenerates plugins/sdk/internal/pb from plugins/sdk/proto/*.proto.
# Generated code is committed because CI has no protoc.
#
# Tools: protoc 3.21 (Debian protobuf-compiler), protoc-gen-go v1.36.12,
# protoc-gen-go-grpc 1.6.2 (go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
# google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2).
#
# Run from anywhere:  go generate ./plugins/sdk
# or directly:        sh plugins/sdk/proto/gen.sh
set -eu
cd "$(dirname "$0")/.."
PATH="$PATH:$(go env GOPATH)/bin:/root/go/bin"
export PATH
protoc --proto_path=proto \
	--go_out=internal/pb --go_opt=paths=source_relative \
	--go-grpc_out=internal/pb --go-grpc_opt=paths=source_relative \
	proto/plugin.proto proto/plinko.proto proto/guides.proto proto/reports.proto
