// Package sharedport reproduces survey 7's redigo false findings: each test starts a
// server of its own on one fixed port, as redigo's test harness starts redis-server on
// 127.0.0.1:16379 once per test process. go test runs one process per package, so the
// tests always pass; a campaign that runs two processes of the package's test binary at
// once (goweave fuzz -p 2, the default on two CPUs) makes the second listener fail, and the
// failure is reported as a flaky-failure although no schedule of the program causes it.
package sharedport

import (
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// addr is the fixed address; SHAREDPORT_ADDR overrides it (goweave's test picks one that is
// free on the machine, so that another program's listener is not taken for the collision).
func addr() string {
	if a := os.Getenv("SHAREDPORT_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:47391"
}

// serve holds the fixed port for a while, as a test server does while the test runs.
func serve(t *testing.T) {
	ln, err := net.Listen("tcp", addr())
	if err != nil {
		t.Fatalf("server exited: %v", err)
	}
	defer ln.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(50 * time.Millisecond)
	}()
	wg.Wait()
}

func TestServerA(t *testing.T) { serve(t) }

func TestServerB(t *testing.T) { serve(t) }
