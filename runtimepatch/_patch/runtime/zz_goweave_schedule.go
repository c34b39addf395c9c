// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave schedule file: reading and parsing GOWEAVE_SCHEDULE at start-up
// (format: fuzzer/schedule/FORMAT.md, version 1) into the tables the steering
// hooks (zz_goweave_steer.go) use. Parsing runs once, from the runtime's
// package initialization, before any user code; it may allocate. After init
// the tables are read-only except for the counters.
//
// Names in the schedule are resolved to small integers once:
//   - a position (file, line) to a schedule position index sp (1-based),
//     stored in goweavePosition.sched when a PC is classified;
//   - a logical goroutine id to a node of a trie of all ids the schedule
//     names (and their prefixes), stored in goweaveG.lnode at spawn;
//   - an operation to (node, sp, k, kind).

package runtime

import "unsafe"

// Format limits (FORMAT.md).
const (
	goweaveSchedMaxSize   = 16 << 20
	goweaveSchedMaxFiles  = 4096
	goweaveSchedMaxPath   = 4096
	goweaveSchedMaxCases  = 65536
	goweaveSchedMaxOps    = 1 << 20
	goweaveSchedMaxDepth  = 32
	goweaveSchedCaseDef   = -1 // select: the default: wait for no case (the select still takes a ready one)
	goweaveSchedCaseFree  = -2 // select: no preference
	goweaveSchedNodeMain  = 1  // trie node of logical id "0"
	goweaveSchedNodeTest  = 2  // trie node of logical id "1"
	goweaveSchedSecHeader = 0
	goweaveSchedSecFiles  = 1
	goweaveSchedSecSelect = 2
	goweaveSchedSecDelay  = 3
	goweaveSchedSecOrder  = 4
	goweaveSchedSecEnd    = 5
)

// goweaveOpKey names one operation: the k-th operation of the goroutine at
// trie node node at schedule position sp, of kind kind.
type goweaveOpKey struct {
	node uint32
	sp   uint32
	k    uint32
	kind uint8
}

// goweaveDelay is one `delay` line.
type goweaveDelay struct {
	op, until goweaveOpKey
	window    int64   // ns
	admitted  bool    // until has been admitted (guarded by goweaveSteerMu)
	by        uintptr // the *g that performed until (guarded by goweaveSteerMu)
	byLast    uint64  // by's newest record when until was admitted: until's record comes after it
}

// goweaveSelectPref is one `select` line.
type goweaveSelectPref struct {
	window int64   // ns
	cases  []int32 // preferred case per execution, or goweaveSchedCase*
	execs  uint32  // executions so far (atomic)
}

// goweaveSchedPos is a position the schedule names.
type goweaveSchedPos struct {
	file uint32 // canonical file index (1-based, into goweaveSchedFiles)
	line uint32
	sel  uint32 // index+1 into goweaveSchedSelects, 0 = no preference
}

// goweaveTable is an open-addressing hash table from non-zero uint64 keys
// to non-zero uint32 values. It grows only during init.
type goweaveTable struct {
	keys []uint64
	vals []uint32
	n    int
}

func goweaveHash64(k uint64) uint64 { return k * 0x9E3779B97F4A7C15 }

func (t *goweaveTable) get(k uint64) uint32 {
	if len(t.keys) == 0 {
		return 0
	}
	mask := uint64(len(t.keys) - 1)
	for i := goweaveHash64(k) >> 32; ; i++ {
		switch t.keys[i&mask] {
		case k:
			return t.vals[i&mask]
		case 0:
			return 0
		}
	}
}

func (t *goweaveTable) put(k uint64, v uint32) {
	if 2*(t.n+1) > len(t.keys) {
		old, oldv := t.keys, t.vals
		size := 16
		for size < 4*(t.n+1) {
			size *= 2
		}
		t.keys, t.vals, t.n = make([]uint64, size), make([]uint32, size), 0
		for i, ok := range old {
			if ok != 0 {
				t.put(ok, oldv[i])
			}
		}
	}
	mask := uint64(len(t.keys) - 1)
	for i := goweaveHash64(k) >> 32; ; i++ {
		switch t.keys[i&mask] {
		case k:
			t.vals[i&mask] = v
			return
		case 0:
			t.keys[i&mask], t.vals[i&mask] = k, v
			t.n++
			return
		}
	}
}

var (
	goweaveSchedOn      bool   // a schedule with something to steer was read; fixed after init
	goweaveSchedPath    string // the file read (META "schedule")
	goweaveSchedFiles   []string
	goweaveSchedPoss    []goweaveSchedPos // index sp-1
	goweaveSchedPosTab  goweaveTable      // canonical file<<32|line -> sp
	goweaveSchedTrie    goweaveTable      // parent node<<32|spawn number -> child node
	goweaveSchedNodes   uint32            // nodes allocated (1 and 2 are "0" and "1")
	goweaveSchedOccTab  goweaveTable      // node<<32|sp -> index+1 into goweaveSchedOcc
	goweaveSchedOcc     []uint32          // occurrence counters of (node, sp) pairs the schedule names
	goweaveSchedSelects []goweaveSelectPref
	goweaveSchedDelays  []goweaveDelay
	goweaveSchedOps     []goweaveOpKey
	goweaveSchedWindow  int64 // order window, ns
	goweaveSchedHasOrd  bool
	goweaveSchedAtomics bool // the order names an atomic operation: atomics wait their turn too
)

// goweaveSchedParser holds the parser's state; it exists only during init.
type goweaveSchedParser struct {
	line    int
	section int
	files   []string // by file number; files[0] unused
	canon   []uint32 // file number -> canonical file index
	fields  []string
	msg     string
}

// goweaveScheduleInit reads and parses the schedule at path. A file that
// cannot be read or does not parse ends the process with status 2 and a
// message naming the file and line: the fuzzer validates every schedule
// before the run, so this means a version mismatch or corruption, and a run
// that silently ignored its schedule would be mistaken for a replay.
func goweaveScheduleInit(path string) {
	b, errMsg := goweaveReadFile(path)
	if errMsg != "" {
		print("goweave: schedule ", path, ": ", errMsg, "\n")
		exit(2)
	}
	var p goweaveSchedParser
	p.files = []string{""}
	p.canon = []uint32{0}
	if !p.run(b) {
		if p.line > 0 {
			print("goweave: schedule ", path, ": line ", p.line, ": ", p.msg, "\n")
		} else {
			print("goweave: schedule ", path, ": ", p.msg, "\n")
		}
		exit(2)
	}
	goweaveSchedPath = path
	goweaveSchedOn = len(goweaveSchedSelects) > 0 || len(goweaveSchedDelays) > 0 || len(goweaveSchedOps) > 0
}

// goweaveReadFile reads a whole file of at most goweaveSchedMaxSize bytes.
func goweaveReadFile(path string) ([]byte, string) {
	name := make([]byte, len(path)+1)
	copy(name, path)
	fd := open(&name[0], goweaveORdonly|goweaveOCloexec, 0)
	if fd < 0 {
		return nil, "cannot open the file"
	}
	buf := make([]byte, 0, 64<<10)
	for {
		if len(buf) == cap(buf) {
			if len(buf) > goweaveSchedMaxSize {
				closefd(fd)
				return nil, "file larger than the format limit of 16777216 bytes"
			}
			nb := make([]byte, len(buf), 2*cap(buf))
			copy(nb, buf)
			buf = nb
		}
		free := buf[len(buf):cap(buf)]
		n := read(fd, unsafe.Pointer(&free[0]), int32(len(free)))
		if n == -_EINTR {
			continue
		}
		if n < 0 {
			closefd(fd)
			return nil, "read error"
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+int(n)]
	}
	closefd(fd)
	if len(buf) > goweaveSchedMaxSize {
		return nil, "file larger than the format limit of 16777216 bytes"
	}
	return buf, ""
}

func (p *goweaveSchedParser) fail(msg string) bool {
	p.msg = msg
	return false
}

func (p *goweaveSchedParser) run(b []byte) bool {
	if len(b) == 0 {
		return p.fail("empty file (want the header line \"goweave-schedule 1\")")
	}
	goweaveSchedNodes = 2
	s := string(b)
	for len(s) > 0 {
		p.line++
		nl := goweaveIndexByte(s, '\n')
		if nl < 0 {
			return p.fail("line does not end with a newline (truncated file?)")
		}
		line := s[:nl]
		s = s[nl+1:]
		if p.section == goweaveSchedSecEnd {
			return p.fail("data after the end line")
		}
		if !p.parseLine(line) {
			return false
		}
	}
	if p.section != goweaveSchedSecEnd {
		return p.fail("missing the end line (truncated file?)")
	}
	return true
}

func goweaveIndexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func (p *goweaveSchedParser) parseLine(line string) bool {
	if goweaveIndexByte(line, '\r') >= 0 {
		return p.fail("carriage return in line (lines end with a single LF)")
	}
	if p.section == goweaveSchedSecHeader {
		if line != "goweave-schedule 1" {
			if len(line) > 17 && line[:17] == "goweave-schedule " {
				return p.fail("unsupported schedule version (this goweave reads version 1)")
			}
			return p.fail("not a goweave schedule (want the header line \"goweave-schedule 1\")")
		}
		p.section = goweaveSchedSecFiles
		return true
	}
	if len(line) > 0 && line[0] == '#' {
		return true
	}
	if line == "" {
		return p.fail("empty line")
	}
	if len(line) >= 5 && line[:5] == "file " {
		return p.fileLine(line[5:])
	}
	p.fields = p.fields[:0]
	for start, i := 0, 0; i <= len(line); i++ {
		if i < len(line) && line[i] != ' ' {
			continue
		}
		if i == start {
			return p.fail("tokens must be separated by exactly one space")
		}
		p.fields = append(p.fields, line[start:i])
		start = i + 1
	}
	f := p.fields
	switch f[0] {
	case "select":
		return p.selectLine(f[1:])
	case "delay":
		return p.delayLine(f[1:])
	case "order":
		return p.orderLine(f[1:])
	case "op":
		return p.opLine(f[1:])
	case "end":
		if len(f) != 1 {
			return p.fail("end takes no arguments")
		}
		if goweaveSchedHasOrd && len(goweaveSchedOps) == 0 {
			return p.fail("order section without op lines")
		}
		p.section = goweaveSchedSecEnd
		return true
	}
	return p.fail("unknown line type (want file, select, delay, order, op or end)")
}

func (p *goweaveSchedParser) enter(sec int) bool {
	if p.section > sec {
		return p.fail("line after a later section (order: file, select, delay, order/op, end)")
	}
	p.section = sec
	return true
}

// goweaveParseUint parses the format's <uint>: 0, or digits without a
// leading zero, below 2^31. It returns -1 when s is not one.
func goweaveParseUint(s string) int {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
		if n >= 1<<31 {
			return -1
		}
	}
	return n
}

func (p *goweaveSchedParser) fileLine(rest string) bool {
	if !p.enter(goweaveSchedSecFiles) {
		return false
	}
	sp := goweaveIndexByte(rest, ' ')
	if sp < 0 {
		return p.fail("file line wants a number and a path")
	}
	n := goweaveParseUint(rest[:sp])
	if n < 0 {
		return p.fail("file number is not a <uint>")
	}
	if n != len(p.files) {
		return p.fail("file number out of sequence")
	}
	if n > goweaveSchedMaxFiles {
		return p.fail("more than 4096 files")
	}
	path := rest[sp+1:]
	if path == "" {
		return p.fail("file has an empty path")
	}
	if len(path) > goweaveSchedMaxPath {
		return p.fail("path longer than 4096 bytes")
	}
	p.files = append(p.files, path)
	canon := uint32(0)
	for i, f := range goweaveSchedFiles {
		if f == path {
			canon = uint32(i + 1)
			break
		}
	}
	if canon == 0 {
		goweaveSchedFiles = append(goweaveSchedFiles, path)
		canon = uint32(len(goweaveSchedFiles))
	}
	p.canon = append(p.canon, canon)
	return true
}

// pos parses <file>:<line> and returns its schedule position index.
func (p *goweaveSchedParser) pos(tok string) (uint32, bool) {
	colon := goweaveIndexByte(tok, ':')
	if colon < 0 {
		return 0, p.fail("position is not file:line")
	}
	fn := goweaveParseUint(tok[:colon])
	if fn < 0 {
		return 0, p.fail("position: file number is not a <uint>")
	}
	if fn == 0 || fn >= len(p.files) {
		return 0, p.fail("position names a file that no file line declared")
	}
	line := goweaveParseUint(tok[colon+1:])
	if line < 0 {
		return 0, p.fail("position: line is not a <uint>")
	}
	if line == 0 {
		return 0, p.fail("position: lines start at 1")
	}
	key := uint64(p.canon[fn])<<32 | uint64(line)
	if sp := goweaveSchedPosTab.get(key); sp != 0 {
		return sp, true
	}
	goweaveSchedPoss = append(goweaveSchedPoss, goweaveSchedPos{file: p.canon[fn], line: uint32(line)})
	sp := uint32(len(goweaveSchedPoss))
	goweaveSchedPosTab.put(key, sp)
	return sp, true
}

func (p *goweaveSchedParser) window(tok string) (int64, bool) {
	ms := goweaveParseUint(tok)
	if ms < 0 {
		return 0, p.fail("window is not a <uint> of milliseconds")
	}
	return int64(ms) * 1e6, true
}

func (p *goweaveSchedParser) selectLine(f []string) bool {
	if !p.enter(goweaveSchedSecSelect) {
		return false
	}
	if len(f) < 3 {
		return p.fail("select wants a position, a window and at least one case")
	}
	if len(f)-2 > goweaveSchedMaxCases {
		return p.fail("more than 65536 preferred cases")
	}
	sp, ok := p.pos(f[0])
	if !ok {
		return false
	}
	if goweaveSchedPoss[sp-1].sel != 0 {
		return p.fail("second select line for this position")
	}
	w, ok := p.window(f[1])
	if !ok {
		return false
	}
	cases := make([]int32, 0, len(f)-2)
	for _, c := range f[2:] {
		switch c {
		case "-1":
			cases = append(cases, goweaveSchedCaseDef)
		case "-2":
			cases = append(cases, goweaveSchedCaseFree)
		default:
			n := goweaveParseUint(c)
			if n < 0 {
				return p.fail("case is not a case index, -1 for default or -2 for none")
			}
			cases = append(cases, int32(n))
		}
	}
	goweaveSchedSelects = append(goweaveSchedSelects, goweaveSelectPref{window: w, cases: cases})
	goweaveSchedPoss[sp-1].sel = uint32(len(goweaveSchedSelects))
	return true
}

func (p *goweaveSchedParser) delayLine(f []string) bool {
	if !p.enter(goweaveSchedSecDelay) {
		return false
	}
	if len(f) != 9 {
		return p.fail("delay wants 9 fields (gid kind pos k ms gid kind pos k)")
	}
	op, ok := p.op(f[0:4])
	if !ok {
		return false
	}
	w, ok := p.window(f[4])
	if !ok {
		return false
	}
	until, ok := p.op(f[5:9])
	if !ok {
		return false
	}
	goweaveSchedDelays = append(goweaveSchedDelays, goweaveDelay{op: op, until: until, window: w})
	return true
}

func (p *goweaveSchedParser) orderLine(f []string) bool {
	if goweaveSchedHasOrd {
		return p.fail("second order line")
	}
	if !p.enter(goweaveSchedSecOrder) {
		return false
	}
	if len(f) != 1 {
		return p.fail("order wants one field, the window in milliseconds")
	}
	w, ok := p.window(f[0])
	if !ok {
		return false
	}
	goweaveSchedHasOrd, goweaveSchedWindow = true, w
	return true
}

func (p *goweaveSchedParser) opLine(f []string) bool {
	if !goweaveSchedHasOrd || p.section != goweaveSchedSecOrder {
		return p.fail("op line outside an order section")
	}
	if len(f) != 4 {
		return p.fail("op wants 4 fields (gid kind pos k)")
	}
	if len(goweaveSchedOps) == goweaveSchedMaxOps {
		return p.fail("more than 1048576 ops")
	}
	op, ok := p.op(f)
	if !ok {
		return false
	}
	if goweaveIsAtomicKind(op.kind) {
		goweaveSchedAtomics = true
	}
	goweaveSchedOps = append(goweaveSchedOps, op)
	return true
}

// op parses `<gid> <kind> <pos> <k>` and registers the (goroutine, position)
// pair for occurrence counting.
func (p *goweaveSchedParser) op(f []string) (goweaveOpKey, bool) {
	node, ok := p.gid(f[0])
	if !ok {
		return goweaveOpKey{}, false
	}
	kind := goweaveParseUint(f[1])
	if kind < 0 {
		return goweaveOpKey{}, p.fail("kind is not a <uint>")
	}
	if kind > 255 || !goweaveOrderable(uint8(kind)) && !goweaveIsAtomicKind(uint8(kind)) {
		return goweaveOpKey{}, p.fail("kind cannot be scheduled (orderable kinds: 4-7, 10-15, 20, 30-32, 40-42, 50-52, 70-71)")
	}
	sp, ok := p.pos(f[2])
	if !ok {
		return goweaveOpKey{}, false
	}
	k := goweaveParseUint(f[3])
	if k < 0 {
		return goweaveOpKey{}, p.fail("occurrence is not a <uint>")
	}
	if k == 0 {
		return goweaveOpKey{}, p.fail("occurrence 0 (occurrences are 1-based)")
	}
	key := uint64(node)<<32 | uint64(sp)
	if goweaveSchedOccTab.get(key) == 0 {
		goweaveSchedOcc = append(goweaveSchedOcc, 0)
		goweaveSchedOccTab.put(key, uint32(len(goweaveSchedOcc)))
	}
	return goweaveOpKey{node: node, sp: sp, k: uint32(k), kind: uint8(kind)}, true
}

// gid validates a logical goroutine id and returns its trie node.
func (p *goweaveSchedParser) gid(s string) (uint32, bool) {
	if s == "" {
		return 0, p.fail("empty goroutine id")
	}
	var node uint32
	comp, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			continue
		}
		comp++
		if comp > goweaveSchedMaxDepth {
			return 0, p.fail("goroutine id has more than 32 components")
		}
		n := goweaveParseUint(s[start:i])
		if n < 0 {
			return 0, p.fail("goroutine id: a component is not a <uint>")
		}
		if comp == 1 {
			if n > 1 {
				return 0, p.fail("goroutine id must start with 0 (main) or 1 (test goroutine)")
			}
			node = goweaveSchedNodeMain + uint32(n)
		} else {
			if n == 0 {
				return 0, p.fail("goroutine id: spawn numbers start at 1")
			}
			key := uint64(node)<<32 | uint64(n)
			child := goweaveSchedTrie.get(key)
			if child == 0 {
				goweaveSchedNodes++
				child = goweaveSchedNodes
				goweaveSchedTrie.put(key, child)
			}
			node = child
		}
		start = i + 1
	}
	return node, true
}

// goweaveOrderable reports whether kind may be named by delay and op lines
// and always waits its turn in an active order (atomics: goweaveHeldByOrder).
func goweaveOrderable(kind uint8) bool {
	switch kind {
	case goweaveKChanSend, goweaveKChanRecv, goweaveKChanClose, goweaveKSelect,
		goweaveKLock, goweaveKUnlock, goweaveKTryLock, goweaveKRLock, goweaveKRUnlock, goweaveKTryRLock,
		goweaveKOnceDo, goweaveKWgAdd, goweaveKWgDone, goweaveKWgWait,
		goweaveKCondWait, goweaveKCondSignal, goweaveKCondBroadcast,
		goweaveKTestUse, goweaveKTestEnd: // zz_goweave_testing.go
		return true
	}
	return false
}

// goweaveIsAtomicKind reports whether kind is an atomic operation: one a
// delay or op line may name, held back by the order only when the order
// names one (goweaveHeldByOrder).
func goweaveIsAtomicKind(kind uint8) bool {
	return kind == goweaveKAtomicLoad || kind == goweaveKAtomicStore || kind == goweaveKAtomicRMW
}

// goweaveHeldByOrder reports whether an operation of kind waits its turn
// while the order is active: the orderable kinds always; atomics only when
// the order pins atomics (it names one). An order that names none would
// otherwise hold every atomic until it ended, diverged.
func goweaveHeldByOrder(kind uint8) bool {
	return goweaveOrderable(kind) || goweaveSchedAtomics && goweaveIsAtomicKind(kind)
}

// goweaveSchedPosOf returns the schedule position index of file:line, 0 if
// the schedule does not name it. Called once per classified PC.
func goweaveSchedPosOf(file string, line int) uint32 {
	if len(goweaveSchedPoss) == 0 || line <= 0 {
		return 0
	}
	for i, f := range goweaveSchedFiles {
		if f == file {
			return goweaveSchedPosTab.get(uint64(i+1)<<32 | uint64(line))
		}
	}
	return 0
}
