package runtimepatch

// reflectSiteTable are the patch sites of package reflect's channel operations
// (_patch/runtime/zz_goweave_reflect.go). Value.Send, TrySend, Recv and TryRecv
// reach chansend and chanrecv through reflect_chansend and reflect_chanrecv,
// past the pre hooks of the compiled entry points, so these two get hooks of
// their own. reflect.Select, Value.Close and MakeChan need no site: their
// runtime functions (reflect_rselect, reflect_chanclose, reflect_makechan)
// call selectgo, closechan and makechan, whose hooks classify the return
// address inside them as a reflect entry and walk to the user's frame. The
// text is the same from go1.25.0 to go1.27.4.
var reflectSiteTable = []site{
	{"runtime/chan.go", "reflect_chansend", "", "\treturn chansend(c, elem, !nb, sys.GetCallerPC())",
		"\tgoweaveRH, goweaveOut := goweaveReflectChanPre(c, elem, false, nb); if goweaveOut >= 0 { return goweaveOut&1 != 0 }; selected = chansend(c, elem, !nb, sys.GetCallerPC()); goweaveReflectChanEnd(goweaveRH, selected); return"},
	{"runtime/chan.go", "reflect_chanrecv", "", "\treturn chanrecv(c, elem, !nb)",
		"\tgoweaveRH, goweaveOut := goweaveReflectChanPre(c, elem, true, nb); if goweaveOut >= 0 { return goweaveOut&1 != 0, goweaveOut&2 != 0 }; selected, received = chanrecv(c, elem, !nb); goweaveReflectChanEnd(goweaveRH, selected); return"},
}
