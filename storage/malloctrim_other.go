//go:build !cgo || !linux

package storage

// mallocTrim does nothing: without cgo Pebble's caches are Go memory,
// which the Go runtime returns itself.
func mallocTrim() {}
