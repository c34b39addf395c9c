// Package stuck holds the programs of runtimepatch's stuck_test.go: runs the
// patched runtime must end as deadlocked by their state, as soon as they are
// stuck (TestStuck*), and runs it must leave alone however long they wait
// (TestNotStuck*). Each runs in its own process with the time limit armed.
package stuck
