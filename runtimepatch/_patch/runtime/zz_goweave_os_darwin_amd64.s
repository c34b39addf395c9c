// Copyright goweave authors. Added to package runtime by the goweave overlay.

#include "textflag.h"

// goweave_getpid_trampoline stores libc's getpid() at the int32 its C
// argument (DI) points to; libcCall calls it on the system stack.
// libc_getpid is imported by the runtime's sys_darwin.go.
TEXT runtime·goweave_getpid_trampoline(SB),NOSPLIT,$0
	MOVQ	DI, BX		// the Go caller saves BX
	CALL	libc_getpid(SB)
	MOVL	AX, 0(BX)
	RET
