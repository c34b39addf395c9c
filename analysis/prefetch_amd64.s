#include "textflag.h"

// func prefetch(s *userSlot)
TEXT ·prefetch(SB), NOSPLIT, $0-8
	MOVQ	s+0(FP), AX
	PREFETCHT0	(AX)
	RET
