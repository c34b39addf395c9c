// Copyright goweave authors. Added to package runtime by the goweave overlay.

#include "textflag.h"

// goweave_getpid_trampoline stores libc's getpid() at the int32 its C
// argument (R0) points to; libcCall calls it on the system stack.
// libc_getpid is imported by the runtime's sys_darwin.go.
TEXT runtime·goweave_getpid_trampoline(SB),NOSPLIT,$0
	MOVD	R0, R19		// R19 survives the C call
	BL	libc_getpid(SB)
	MOVW	R0, 0(R19)
	RET
