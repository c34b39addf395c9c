// Package replay owns making a finding's bug happen again: Replay reruns the test that
// found it (under the rewrites of a predicted finding, or the schedule of a steered run)
// through the campaign loop; ReplayRecipe rebuilds a recipe's test, refuses changed code
// and runs it under the recipe's schedule, with a shell command that repeats the run.
package replay
