// Package selectcase maps a select's cases from the order the runtime records them in to
// the order the user wrote them.
//
// The compiler hands selectgo the send cases first (in source order), then the receive
// cases (stored last and reversed, which the recorder undoes); the default clause is not a
// case. So the trace's case k is the k-th send clause, or for k >= the number of sends the
// (k - sends)-th receive clause: the source order only when no send clause follows a
// receive clause. The trace cannot tell more (it has the select's line, not its cases'), but
// the host has the source: Find parses the file (once per file version) and pairs the
// recorded cases with the clauses of the select statement at the recorded line, so that
// findings, mutation notes and replays can say "case 2 (`<-done`, line 41)".
//
// When the source cannot be read, or no longer has a select at that line with the recorded
// number of send and receive cases, Find fails and Name falls back to the runtime's numbering
// and says so. Schedules keep the runtime's numbering (fuzzer/schedule/FORMAT.md): the
// runtime cannot see the source.
package selectcase
