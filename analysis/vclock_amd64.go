package analysis

// joinSSE41 sets dst[i] to max(dst[i], src[i]) for i < n, four entries per instruction;
// n must be a multiple of 4.
//
//go:noescape
func joinSSE41(dst, src *uint32, n int)

// compareSSE41 is compareLeaves with vector instructions (SSE4.1).
//
//go:noescape
func compareSSE41(d, s *[leafN]uint32) (gt, lt bool)

// compareVector is compareLeaves on a CPU with SSE4.1 (ok false: it has not).
func compareVector(d, s *[leafN]uint32) (gt, lt, ok bool) {
	if !hasSSE41 {
		return false, false, false
	}
	gt, lt = compareSSE41(d, s)
	return gt, lt, true
}

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// joinVector joins the first n entries (a multiple of 4) of src into dst if the CPU has
// SSE4.1 (unsigned 32-bit max), and reports whether it did.
func joinVector(dst, src []uint32, n int) bool {
	if !hasSSE41 {
		return false
	}
	joinSSE41(&dst[0], &src[0], n)
	return true
}

var hasSSE41 = func() bool {
	_, _, ecx, _ := cpuid(1, 0)
	return ecx&(1<<19) != 0
}()
