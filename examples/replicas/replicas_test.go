package replicas

import (
	"strings"
	"testing"
	"time"
)

func TestFirstAnswerWins(t *testing.T) {
	rs := []Replica{{"eu", 5 * time.Millisecond}, {"us", time.Millisecond}, {"ap", 10 * time.Millisecond}}
	got := First("ping", rs)
	if !strings.HasSuffix(got, ":ping") {
		t.Errorf("answer %q", got)
	}
	time.Sleep(20 * time.Millisecond) // every replica has answered (or tried to)
}
