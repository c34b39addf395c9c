// Package mutate owns the schedule-mutation strategies of a fuzzing campaign: pure functions
// (plus the little state a strategy keeps across runs) from an analyzed run — its trace and
// happens-before relation — to new schedules worth running:
//
//   - gfuzz: GFuzz select fuzzing with the happens-before extensions (possible partners weigh
//     flips and score), persistent interesting-run feedback (GFuzzState);
//   - gopie: GoPie scheduling chains (abridge, flip, substitute, augment) with chains that
//     contradict the recorded happens-before pruned before they are run;
//   - flow: delays that reverse HB-concurrent Once.Do / TryLock / send / receive pairs;
//   - prefix: replay a prefix of a run and change one decision, guided by a coverage of
//     schedule signatures (execution graphs);
//   - replay and confirm: Replay repeats a recorded run; Confirm rewrites it so that a
//     predicted finding happens, around MustHappenBefore (the orders every schedule keeps).
//
// It knows nothing about running tests (package fuzzer wires strategies into campaigns) or
// computing happens-before (package analysis provides it through the HB interface).
package mutate
