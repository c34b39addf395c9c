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
