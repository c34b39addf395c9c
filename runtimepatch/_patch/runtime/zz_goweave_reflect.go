// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave's view of package reflect's channel operations: reflect.Select,
// Value.Send, Recv, TrySend, TryRecv, Close and MakeChan. They reach the
// runtime through linknamed functions (reflect_chansend, reflect_chanrecv,
// reflect_chanclose, reflect_rselect, reflect_makechan) that call chansend,
// chanrecv, closechan, selectgo and makechan directly, past the entry points
// compiled code calls: the send and receive had no pre hook, and the return
// address the close, select and make hooks see lies in the runtime (the
// linknamed function), so all of them went unrecorded. A receive whose
// partner was a reflect send or select then had no recorded partner.
//
// They are recorded like the compiled operations, at the user's call of the
// reflect function: the frames of package reflect and the runtime are
// passed (reflect is transparent: zz_goweave_lib.go), as are a dependency's
// (the record then gets the internal flag, as for any library operation).

package runtime

import "unsafe"

// goweaveReflectEntry is the PC cache class of a return address inside the
// runtime's reflect entry points: the operation is attributed to the user
// frame that called package reflect (goweaveReflectPos).
const goweaveReflectEntry = ^uint32(0) - 4

// goweaveIsReflectEntry reports whether fn is a runtime function package
// reflect calls whose callees' hooks take their caller's PC
// (sys.GetCallerPC in closechan, selectgo, block and makechan). They are
// named by their push linknames.
func goweaveIsReflectEntry(fn string) bool {
	switch fn {
	case "reflect.chanclose", "reflect.rselect", "reflect.makechan":
		return true
	}
	return false
}

// goweaveReflectNear is how many frames goweaveReflectPos unwinds first:
// from it to a user's direct call of reflect.Select there are 7. Unwinding
// costs per frame, and a reflect operation pays it on every call.
const goweaveReflectNear = 12

// goweaveReflectPos returns the position of the user call that entered
// package reflect on the current goroutine, 0 when there is none or when a
// standard package whose synchronisation is not recorded made the call.
func goweaveReflectPos() uint32 {
	gp := getg()
	if gp != gp.m.curg {
		return 0
	}
	var pcs [goweaveLibFrames]uintptr
	n := callers(1, pcs[:goweaveReflectNear])
	pos, lib, found := goweaveReflectScan(pcs[:n])
	if !found && n == goweaveReflectNear {
		n = callers(1, pcs[:])
		pos, lib, found = goweaveReflectScan(pcs[:n])
	}
	if found {
		gp.goweave.lib = lib && pos != 0
		return pos
	}
	if lib && gp.goweave.spawnPos != 0 {
		gp.goweave.lib = true
		return gp.goweave.spawnPos
	}
	return 0
}

// goweaveReflectScan finds the first frame of pcs that is neither the
// runtime's, reflect's nor a recorded library's: its position (0 for the
// unrecorded standard library) and whether a library frame came before.
func goweaveReflectScan(pcs []uintptr) (pos uint32, lib, found bool) {
	for _, pc := range pcs {
		switch v := goweaveLookup(pc); v {
		case goweaveNotUser, goweaveWrapper, goweaveReflectEntry:
		case goweaveLib:
			lib = true // a dependency called reflect: attribute to the user frame below it
		case goweaveOpaque:
			return 0, lib, true
		default:
			return v, lib, true
		}
	}
	return 0, lib, false
}

// goweaveReflectChanPre is the pre hook of reflect_chansend (recv false)
// and reflect_chanrecv. A blocking Send or Recv is recorded as a plain send
// or receive (the receive with commaok: Recv reports whether the channel
// was closed), a TrySend or TryRecv (nb) as a one-case select with a
// default, which is what it is. h and outcome are as for
// goweaveSelectNBPre; h is 0 for a blocking operation, whose record the
// channel's hooks complete.
func goweaveReflectChanPre(c *hchan, elem unsafe.Pointer, recv, nb bool) (h uint64, outcome int) {
	if !goweaveOn {
		return 0, -1
	}
	pos := goweaveReflectPos()
	if pos == 0 {
		return 0, -1
	}
	if nb {
		return goweaveSelectNBPreAt(c, elem, recv, recv, pos)
	}
	goweaveChanPreAt(c, recv, recv, recv, pos)
	return 0, -1
}

// goweaveReflectChanEnd completes a TrySend or TryRecv (h != 0).
func goweaveReflectChanEnd(h uint64, selected bool) {
	goweaveSelectNBEnd(h, selected)
}
