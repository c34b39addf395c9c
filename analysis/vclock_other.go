//go:build !amd64

package analysis

func joinVector(dst, src []uint32, n int) bool { return false }

func compareVector(d, s *[leafN]uint32) (gt, lt, ok bool) { return false, false, false }
