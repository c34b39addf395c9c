#include "textflag.h"

// func joinSSE41(dst, src *uint32, n int)
// dst[i] = max(dst[i], src[i]) for i < n; n is a multiple of 4.
TEXT ·joinSSE41(SB), NOSPLIT, $0-24
	MOVQ	dst+0(FP), DI
	MOVQ	src+8(FP), SI
	MOVQ	n+16(FP), CX

loop16:
	CMPQ	CX, $16
	JB	loop4
	MOVOU	(DI), X0
	MOVOU	16(DI), X1
	MOVOU	32(DI), X2
	MOVOU	48(DI), X3
	MOVOU	(SI), X4
	MOVOU	16(SI), X5
	MOVOU	32(SI), X6
	MOVOU	48(SI), X7
	PMAXUD	X4, X0
	PMAXUD	X5, X1
	PMAXUD	X6, X2
	PMAXUD	X7, X3
	MOVOU	X0, (DI)
	MOVOU	X1, 16(DI)
	MOVOU	X2, 32(DI)
	MOVOU	X3, 48(DI)
	ADDQ	$64, DI
	ADDQ	$64, SI
	SUBQ	$16, CX
	JMP	loop16

loop4:
	CMPQ	CX, $4
	JB	done
	MOVOU	(DI), X0
	MOVOU	(SI), X4
	PMAXUD	X4, X0
	MOVOU	X0, (DI)
	ADDQ	$16, DI
	ADDQ	$16, SI
	SUBQ	$4, CX
	JMP	loop4

done:
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL	leaf+0(FP), AX
	MOVL	sub+4(FP), CX
	CPUID
	MOVL	AX, eax+8(FP)
	MOVL	BX, ebx+12(FP)
	MOVL	CX, ecx+16(FP)
	MOVL	DX, edx+20(FP)
	RET

// func compareSSE41(d, s *[64]uint32) (gt, lt bool)
// gt: some s[i] > d[i]; lt: some s[i] < d[i]. Each entry's max is compared with both
// sides; the equalities are ANDed over the 16 quads and tested once at the end.
TEXT ·compareSSE41(SB), NOSPLIT, $0-18
	MOVQ	d+0(FP), DI
	MOVQ	s+8(FP), SI
	MOVQ	$8, CX
	PCMPEQL	X6, X6
	PCMPEQL	X7, X7

cloop:
	MOVOU	(DI), X0
	MOVOU	(SI), X1
	MOVOU	16(DI), X8
	MOVOU	16(SI), X9
	MOVO	X0, X2
	MOVO	X8, X10
	PMAXUD	X1, X2
	PMAXUD	X9, X10
	MOVO	X2, X3
	MOVO	X10, X11
	PCMPEQL	X0, X2
	PCMPEQL	X1, X3
	PCMPEQL	X8, X10
	PCMPEQL	X9, X11
	PAND	X2, X6
	PAND	X3, X7
	PAND	X10, X6
	PAND	X11, X7
	ADDQ	$32, DI
	ADDQ	$32, SI
	DECQ	CX
	JNZ	cloop

	PMOVMSKB	X6, AX
	PMOVMSKB	X7, BX
	CMPL	AX, $0xFFFF
	SETNE	gt+16(FP)
	CMPL	BX, $0xFFFF
	SETNE	lt+17(FP)
	RET
