#include "textflag.h"

// func prefetch(slots *[prefetchBatch]*userSlot, n int)
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ	slots+0(FP), SI
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JLE	done
loop:
	MOVQ	(SI), AX
	PREFETCHT0	(AX)
	ADDQ	$8, SI
	DECQ	CX
	JNZ	loop
done:
	RET
