//go:build cgo && linux

package storage

// malloc_trim is glibc's; declared weak, so that a C library without it
// (musl) links and the call is skipped.

/*
#include <stddef.h>
extern int malloc_trim(size_t pad) __attribute__((weak));
static void trim(void) { if (malloc_trim) malloc_trim(0); }
*/
import "C"

// mallocTrim returns the C heap's free pages to the operating system:
// Pebble allocates its block cache and memtables with malloc when cgo is on.
func mallocTrim() { C.trim() }
