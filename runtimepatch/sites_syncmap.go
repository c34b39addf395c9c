package runtimepatch

// syncMapSites hooks the methods of sync.Map, declared in file: sync/hashtriemap.go on go1.25
// (the default implementation, a wrapper of internal/sync.HashTrieMap; the older sync/map.go
// is built only with GOEXPERIMENT=nosynchashtriemap and is not hooked), sync/map.go with the
// same text from go1.26 on.
//
// sync.Map documents that a write "synchronizes before" any read that observes its effect
// (Load, LoadAndDelete, LoadOrStore, Swap, CompareAndSwap and CompareAndDelete read; Store,
// Delete, LoadAndDelete, Swap and, when they change the map, LoadOrStore, CompareAndSwap and
// CompareAndDelete write). goweave records that as atomic events on one address per map and
// key (_patch/runtime/zz_goweave_syncmap.go), so the atomic rule (analysis/rules_atomic.go)
// orders each read after the earlier writes of its key:
//   - Load: an AtomicLoad recorded after it read;
//   - Store, Delete: an AtomicStore recorded before they write;
//   - LoadOrStore, LoadAndDelete, Swap, CompareAndSwap, CompareAndDelete: an AtomicStore before
//     and an AtomicLoad after, so the stamps order them after every write they may have observed
//     and before every read that may observe them, whichever way they turned out (one that
//     turned out a pure read also releases: more order than the run had, which can hide a
//     prediction but never invent one);
//   - Range: an AtomicLoad of each key it visits, recorded before f is called for it;
//   - Clear: nothing (not a documented write; a Load that finds a key cleared is not ordered
//     after the Clear).
//
// The caller is the frame that called the Map method (sys.GetCallerPC): only calls from the
// module under test are recorded, as for sync/atomic.
func syncMapSites(file string) []site {
	return []site{
		{file, "import", "", "\tisync \"internal/sync\"", "\tisync \"internal/sync\"; \"internal/runtime/sys\""},
		{file, "(*Map).Load", "", "\treturn m.m.Load(key)",
			"\tvalue, ok = m.m.Load(key); goweaveMapOp(goweaveKAtomicLoad, m, key, sys.GetCallerPC()); return"},
		{file, "(*Map).Store", "", "\tm.m.Store(key, value)",
			"\tgoweaveMapOp(goweaveKAtomicStore, m, key, sys.GetCallerPC()); m.m.Store(key, value)"},
		{file, "(*Map).Delete", "", "\tm.m.Delete(key)",
			"\tgoweaveMapOp(goweaveKAtomicStore, m, key, sys.GetCallerPC()); m.m.Delete(key)"},
		{file, "(*Map).LoadOrStore", "", "\treturn m.m.LoadOrStore(key, value)",
			"\tgoweavePC := sys.GetCallerPC(); goweaveMapOp(goweaveKAtomicStore, m, key, goweavePC); actual, loaded = m.m.LoadOrStore(key, value); goweaveMapOp(goweaveKAtomicLoad, m, key, goweavePC); return"},
		{file, "(*Map).LoadAndDelete", "", "\treturn m.m.LoadAndDelete(key)",
			"\tgoweavePC := sys.GetCallerPC(); goweaveMapOp(goweaveKAtomicStore, m, key, goweavePC); value, loaded = m.m.LoadAndDelete(key); goweaveMapOp(goweaveKAtomicLoad, m, key, goweavePC); return"},
		{file, "(*Map).Swap", "", "\treturn m.m.Swap(key, value)",
			"\tgoweavePC := sys.GetCallerPC(); goweaveMapOp(goweaveKAtomicStore, m, key, goweavePC); previous, loaded = m.m.Swap(key, value); goweaveMapOp(goweaveKAtomicLoad, m, key, goweavePC); return"},
		{file, "(*Map).CompareAndSwap", "", "\treturn m.m.CompareAndSwap(key, old, new)",
			"\tgoweavePC := sys.GetCallerPC(); goweaveMapOp(goweaveKAtomicStore, m, key, goweavePC); swapped = m.m.CompareAndSwap(key, old, new); goweaveMapOp(goweaveKAtomicLoad, m, key, goweavePC); return"},
		{file, "(*Map).CompareAndDelete", "", "\treturn m.m.CompareAndDelete(key, old)",
			"\tgoweavePC := sys.GetCallerPC(); goweaveMapOp(goweaveKAtomicStore, m, key, goweavePC); deleted = m.m.CompareAndDelete(key, old); goweaveMapOp(goweaveKAtomicLoad, m, key, goweavePC); return"},
		{file, "(*Map).Range", "", "\tm.m.Range(f)",
			"\tgoweavePC := sys.GetCallerPC(); m.m.Range(func(key, value any) bool { goweaveMapOp(goweaveKAtomicLoad, m, key, goweavePC); return f(key, value) })"},
	}
}

// withSyncMap is the site table of a release whose sync.Map methods are declared in file.
func withSyncMap(file string) []site {
	return append(append([]site(nil), siteTable...), syncMapSites(file)...)
}
