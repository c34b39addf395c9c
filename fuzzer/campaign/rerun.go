package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/goweave/goweave/fuzzer/build"
)

// ErrNoSuchTest is returned by Rerun when cfg does not select exactly one test.
var ErrNoSuchTest = errors.New("the configuration selects no single test")

// Rerun is the campaign loop for one test, as a replay uses it: it builds cfg's package and
// runs the one test cfg selects, first under each of requests in turn and then freely
// (cfg's Strategy decides), within cfg's budget. each sees every analyzed run, with its
// trace kept, in completion order; returning true ends the test. A package that does not
// compile is an error, as is a cfg that selects no single test (ErrNoSuchTest).
func Rerun(ctx context.Context, cfg Config, requests []*RunRequest, each func(bin *build.TestBinary, ar *AnalyzedRun) (done bool)) error {
	c, buildErr, err := newCampaign(ctx, cfg, nil)
	if err != nil || buildErr != nil {
		return errors.Join(buildErr, err)
	}
	defer os.RemoveAll(filepath.Join(c.dir, "bin"))
	if len(c.tests) != 1 {
		return ErrNoSuchTest
	}
	t := c.tests[0]
	t.queue = append(t.queue, requests...)
	c.analyze = true
	c.keepTraces = true
	c.onRun = func(ar *AnalyzedRun) {
		if !t.enough && each(t.bin, ar) {
			t.enough = true
		}
	}
	c.loop(ctx)
	return ctx.Err()
}
