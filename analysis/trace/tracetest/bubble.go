package tracetest

// GoBubble spawns a goroutine at pos into the testing/synctest bubble id (a GoSpawn's b,
// FORMAT.md): a bubble's main goroutine when g is outside it.
func (g *G) GoBubble(pos string, bubble uint64) *G {
	child := g.Go(pos)
	g.b.t.Events[len(g.b.t.Events)-1].B = bubble
	return child
}
