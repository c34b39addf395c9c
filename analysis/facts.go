package analysis

// facts are what the engine's rules record for the detectors while walking the trace.
type facts struct {
	pairs    []Pair
	pairSeen map[pairKey]bool

	selects       map[selectKey]*SelectCase
	selectOrder   []selectKey
	selectForeign map[selectKey]bool // select statements (cas -1) that took a foreign channel's case

	// send or value receive unordered with a close of its channel
	closeRaces    []closeRace
	closeRaceSeen map[pairKey]bool
	// plain value receives on one channel in different goroutines, unordered
	concRecvs    []Pair
	concRecvSeen map[pairKey]bool

	// happened: panicking or fatal operations, each with the related earlier operation
	sendOnClosed     []evPair // send, close
	recvOnClosed     []evPair // receive, close
	closeOfClosed    []evPair // second close, first close
	closeOfNil       []int32
	negativeWG       []evPair // Add/Done, previous Add/Done on the group
	unlockOfUnlocked []evPair // unlock, previous unlock

	// an unlock of a lock acquired in another goroutine, not ordered after the acquisition
	unorderedUnlocks []evPair // unlock, acquisition

	tests testFacts // uses of a test's T and its end (rules_testing.go)

	wgs []*wgFacts
	// an Add from a zero counter and a Wait of the same group, unordered (rule WgAddWait)
	addWait     []addWaitPair
	addWaitSeen map[pairKey]bool

	deps    []lockDep
	depSeen map[depKey]uint8
	// acquisitions unlocked by another goroutine than their locker (a lock handed off):
	// the locker does not hold them across its later requests (detect_deadlock.go)
	handedOff   map[int32]bool
	rwRecursion []rwFact
	// write requests on RWMutexes, for read-read edges of lock cycles (detect_deadlock_rw.go)
	writers    []lockDep
	writersOf  map[int32][]int32 // mutex -> indices in writers
	writerSeen map[depKey]uint8
	rwSeen     map[pairKey]bool
	mixed      []mixedFact
	mixedSeen  map[pairKey]bool

	blocked          []int32
	blockedUnderLock []blockedHold
	holders          map[uint64]int32   // mutex -> acquisition still held at the end
	readHolders      map[uint64][]int32 // RWMutex not write-held -> its read acquisitions still held at the end

}

type evPair struct{ a, b int32 }

// pairKey is a pair of source positions, per kind of pair in pairSeen (each other map
// holds one kind).
type pairKey struct {
	kind   uint8 // pairCode
	pa, pb uint32
}

// pairCode numbers the pair kinds for pairKey (a small key hashes faster than a string).
func pairCode(k PairKind) uint8 {
	switch k {
	case PairOnce:
		return 1
	case PairTryLock:
		return 2
	case PairLock:
		return 3
	case PairSend:
		return 4
	case PairRecv:
		return 5
	}
	return 0
}

type selectKey struct {
	pos uint32
	g   int32 // only when the position is unknown
	cas int
}

type closeRace struct {
	op, close int32
	send      bool
}

type depKey struct {
	g, mutex, inner int32
	pos             uint32
	n               int
}

type lockDep struct {
	ev    int32 // the request
	g     int32
	mutex int32
	read  bool
	held  []heldLock
	wvc   vclock // weak clock at the request
}

// rwFact: a recursive RLock (inner, while holding outer) and a writer's Lock concurrent with it.
type rwFact struct{ inner, outer, writer int32 }

type mixedFact struct {
	op, held, partner, partnerLock int32
}

type blockedHold struct {
	ev   int32
	held []heldLock
}

func (f *facts) init() {
	f.pairSeen = map[pairKey]bool{}
	f.selects = map[selectKey]*SelectCase{}
	f.selectForeign = map[selectKey]bool{}
	f.closeRaceSeen = map[pairKey]bool{}
	f.concRecvSeen = map[pairKey]bool{}
	f.rwSeen = map[pairKey]bool{}
	f.mixedSeen = map[pairKey]bool{}
	f.holders = map[uint64]int32{}
	f.readHolders = map[uint64][]int32{}
	f.depSeen = map[depKey]uint8{}
	f.writerSeen = map[depKey]uint8{}
}

// maxPairs bounds the pair lists of huge traces; the first pairs found are kept.
const maxPairs = 10000
