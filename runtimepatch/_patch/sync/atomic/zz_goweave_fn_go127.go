// Copyright goweave authors. Added to package sync/atomic by the goweave overlay.

//go:build go1.27

// From go1.27 the linker lets the runtime reach an assembly function of
// sync/atomic only if it is marked //go:linknamestd, as doc.go marks the
// originals of these three (runtime/atomic_pointer.go calls them); their
// implementations are now the renamed ones (zz_goweave_fn.go).

package atomic

import _ "unsafe" // for go:linknamestd

//go:linknamestd goweaveSwapUintptr
//go:linknamestd goweaveCompareAndSwapUintptr
//go:linknamestd goweaveStoreUintptr
