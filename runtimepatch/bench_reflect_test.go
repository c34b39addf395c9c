package runtimepatch

import "testing"

// The cost of recording reflect.Select (zz_goweave_reflect.go walks the stack to the
// user's frame on every call), beside BenchmarkRecordSelect2's compiled select.
func BenchmarkRecordReflectSelect2(b *testing.B) {
	benchRecording(b, "BenchmarkReflectSelect2", 300_000, 2)
}
