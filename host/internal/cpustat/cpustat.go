// Package cpustat reads the CPU time this process has used, for
// benchmarks that report a cost per operation beside ns/op (which is
// latency, and moves with other processes' load).
package cpustat
