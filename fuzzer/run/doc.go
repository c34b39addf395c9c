// Package run owns one test process: Test starts one test of a built test binary in its
// own process group with the goweave runtime's environment (trace path, module root,
// schedule), enforces its time limit from outside (SIGQUIT, which flushes the trace, then
// SIGKILL), keeps the head and tail of its output, classifies how it ended (Status), and
// makes sure nothing the test started outlives the run (contain_*.go: a PID namespace per
// run on Linux, else the process group and a sweep; Containment says which).
package run
