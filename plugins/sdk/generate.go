package sdk

// Generated code in internal/pb is committed (CI has no protoc). Regenerate
// after editing proto/*.proto with:
//
//	PATH=$PATH:/root/go/bin go generate ./plugins/sdk
//
//go:generate sh proto/gen.sh
