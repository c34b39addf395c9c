package docscheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// root is the goweave checkout (this module is .ci/docscheck in it).
var root = func() string {
	dir, err := filepath.Abs("../..")
	if err != nil {
		panic(err)
	}
	return dir
}()

const (
	workflowFile = "docs/ci/github-actions.yml"
	jobsFile     = "docs/ci/k8s-indexed-job.yaml"
	ciDoc        = "docs/ci.md"
)

func read(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDocEmbedsTheExamples: docs/ci.md shows each example file whole, so that what a
// reader copies is what these tests check.
func TestDocEmbedsTheExamples(t *testing.T) {
	doc := string(read(t, ciDoc))
	for _, f := range []string{workflowFile, jobsFile} {
		block := "```yaml\n" + string(read(t, f)) + "```\n"
		if !strings.Contains(doc, block) {
			t.Errorf("%s does not show %s as it is (a ```yaml block with the whole file)", ciDoc, f)
		}
	}
}

// workflow is the part of a GitHub Actions workflow these tests read.
type workflow struct {
	Env  map[string]any `json:"env"`
	Jobs map[string]struct {
		Needs    any `json:"needs"`
		Strategy struct {
			Matrix map[string]any `json:"matrix"`
		} `json:"strategy"`
		Steps []struct {
			ID   string `json:"id"`
			Run  string `json:"run"`
			Uses string `json:"uses"`
		} `json:"steps"`
		Permissions map[string]string `json:"permissions"`
	} `json:"jobs"`
}

func readWorkflow(t *testing.T) workflow {
	t.Helper()
	var w workflow
	if err := yaml.Unmarshal(read(t, workflowFile), &w); err != nil {
		t.Fatalf("%s: %v", workflowFile, err)
	}
	return w
}

// step returns the run script of the step with id in job.
func (w workflow) step(t *testing.T, job, id string) string {
	t.Helper()
	for _, s := range w.Jobs[job].Steps {
		if s.ID == id {
			return s.Run
		}
	}
	t.Fatalf("%s: job %s has no step with id %q", workflowFile, job, id)
	return ""
}

func (w workflow) shards(t *testing.T) []int {
	t.Helper()
	n, err := strconv.Atoi(fmt.Sprint(w.Env["SHARDS"]))
	if err != nil {
		t.Fatalf("%s: env.SHARDS = %v, want a number", workflowFile, w.Env["SHARDS"])
	}
	list, _ := w.Jobs["fuzz"].Strategy.Matrix["shard"].([]any)
	var shards []int
	for _, v := range list {
		f, ok := v.(float64)
		if !ok {
			t.Fatalf("%s: matrix.shard has %v, want numbers", workflowFile, v)
		}
		shards = append(shards, int(f))
	}
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(shards, want) {
		t.Fatalf("%s: matrix.shard = %v, but env.SHARDS = %d wants %v", workflowFile, shards, n, want)
	}
	return shards
}

func TestWorkflowShape(t *testing.T) {
	w := readWorkflow(t)
	w.shards(t)
	if fmt.Sprint(w.Jobs["merge"].Needs) != "fuzz" {
		t.Errorf("the merge job needs %v, want fuzz", w.Jobs["merge"].Needs)
	}
	if w.Jobs["merge"].Permissions["security-events"] != "write" {
		t.Errorf("the merge job cannot upload SARIF: permissions %v lack security-events: write", w.Jobs["merge"].Permissions)
	}
	uploads := false
	for _, s := range w.Jobs["merge"].Steps {
		uploads = uploads || strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@")
	}
	if !uploads {
		t.Error("the merge job has no github/codeql-action/upload-sarif step")
	}
}

// jobs are the documents of the Kubernetes example, decoded strictly: a misspelt or
// misplaced field fails, as the API server's strict field validation would.
type jobs struct {
	claim *corev1.PersistentVolumeClaim
	fuzz  *batchv1.Job
	merge *batchv1.Job
}

func readJobs(t *testing.T) jobs {
	t.Helper()
	var j jobs
	for i, doc := range regexp.MustCompile(`(?m)^---\n`).Split(string(read(t, jobsFile)), -1) {
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("%s: document %d: %v", jobsFile, i+1, err)
		}
		var obj any
		switch {
		case meta.Kind == "PersistentVolumeClaim":
			j.claim = new(corev1.PersistentVolumeClaim)
			obj = j.claim
		case meta.Kind == "Job" && meta.Metadata.Name == "goweave-fuzz":
			j.fuzz = new(batchv1.Job)
			obj = j.fuzz
		case meta.Kind == "Job" && meta.Metadata.Name == "goweave-merge":
			j.merge = new(batchv1.Job)
			obj = j.merge
		default:
			t.Fatalf("%s: document %d is a %s %q, which this test does not know", jobsFile, i+1, meta.Kind, meta.Metadata.Name)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s: document %d (%s %s): %v", jobsFile, i+1, meta.Kind, meta.Metadata.Name, err)
		}
		// encoding/json matches field names case-insensitively; the API server does not.
		if lost := lostFields(t, []byte(doc), obj); len(lost) > 0 {
			t.Fatalf("%s: document %d (%s %s): fields the API does not have (check their spelling and case): %s",
				jobsFile, i+1, meta.Kind, meta.Metadata.Name, strings.Join(lost, ", "))
		}
	}
	if j.claim == nil || j.fuzz == nil || j.merge == nil {
		t.Fatalf("%s: want a PersistentVolumeClaim and the Jobs goweave-fuzz and goweave-merge", jobsFile)
	}
	return j
}

// lostFields returns the paths of the fields of doc that obj, encoded again, lacks.
func lostFields(t *testing.T, doc []byte, obj any) []string {
	t.Helper()
	var written, decoded any
	js, err := yaml.YAMLToJSON(doc)
	if err == nil {
		err = json.Unmarshal(js, &written)
	}
	if err == nil {
		js, err = json.Marshal(obj)
	}
	if err == nil {
		err = json.Unmarshal(js, &decoded)
	}
	if err != nil {
		t.Fatal(err)
	}
	var lost []string
	var walk func(path string, w, d any)
	walk = func(path string, w, d any) {
		switch w := w.(type) {
		case map[string]any:
			dm, _ := d.(map[string]any)
			for k, v := range w {
				dv, ok := dm[k]
				if !ok {
					lost = append(lost, path+"."+k)
					continue
				}
				walk(path+"."+k, v, dv)
			}
		case []any:
			dl, _ := d.([]any)
			for i, v := range w {
				if i < len(dl) {
					walk(fmt.Sprintf("%s[%d]", path, i), v, dl[i])
				}
			}
		}
	}
	walk("", written, decoded)
	sort.Strings(lost)
	return lost
}

func env(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// script returns the shell script a container runs with /bin/sh -c.
func script(t *testing.T, c corev1.Container) string {
	t.Helper()
	if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 {
		t.Fatalf("container %s: command %q args %q, want /bin/sh -c and one script", c.Name, c.Command, c.Args)
	}
	return c.Args[0]
}

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func TestIndexedJobShape(t *testing.T) {
	j := readJobs(t)
	spec := j.fuzz.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatal("goweave-fuzz is not an Indexed Job: without completionMode Indexed no pod gets JOB_COMPLETION_INDEX")
	}
	c := spec.Template.Spec.Containers[0]
	shards, err := strconv.Atoi(env(c, "SHARDS"))
	if err != nil || spec.Completions == nil || int(*spec.Completions) != shards {
		t.Errorf("SHARDS = %q but completions = %d: every shard needs exactly one index", env(c, "SHARDS"), deref(spec.Completions))
	}
	if deref(spec.Parallelism) != deref(spec.Completions) {
		t.Errorf("parallelism %d != completions %d: the example runs all shards at once", deref(spec.Parallelism), deref(spec.Completions))
	}
	if !strings.Contains(script(t, c), `-shard "$JOB_COMPLETION_INDEX/$SHARDS"`) {
		t.Errorf("the fuzz script does not pass -shard \"$JOB_COMPLETION_INDEX/$SHARDS\": %s", script(t, c))
	}
	if spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Error("podFailurePolicy needs restartPolicy: Never")
	}
	for _, r := range spec.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil && r.OnExitCodes.ContainerName != nil && *r.OnExitCodes.ContainerName != c.Name {
			t.Errorf("podFailurePolicy names container %q, the container is %q", *r.OnExitCodes.ContainerName, c.Name)
		}
	}
	for _, job := range []*batchv1.Job{j.fuzz, j.merge} {
		for _, v := range job.Spec.Template.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName != j.claim.Name {
				t.Errorf("%s mounts claim %q, the example's claim is %q", job.Name, v.PersistentVolumeClaim.ClaimName, j.claim.Name)
			}
		}
	}
	fuzzDir, mergeDir := c.WorkingDir, j.merge.Spec.Template.Spec.Containers[0].WorkingDir
	if !strings.HasPrefix(fuzzDir+"/", mergeDir+"/") {
		t.Errorf("merge runs in %s, not at or above the fuzzed module %s: SARIF paths would not be relative to the repository", mergeDir, fuzzDir)
	}
}

// report is the part of a goweave fuzz -json / merge report these tests read.
type report struct {
	Findings []struct {
		Kind        string `json:"kind"`
		Fingerprint string `json:"fingerprint"`
	} `json:"findings"`
	Tests []struct {
		Package string `json:"package"`
		Test    string `json:"test"`
	} `json:"tests"`
}

func readReport(t *testing.T, path string) report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s is not a goweave report: %v\n%s", path, err, data)
	}
	return r
}

func (r report) testNames() []string {
	var names []string
	for _, x := range r.Tests {
		names = append(names, x.Package+"."+x.Test)
	}
	sort.Strings(names)
	return names
}

// exampleTests lists the tests of examples/ as goweave names them.
func exampleTests(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "-C", filepath.Join(root, "examples"), "test", "-list", ".", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go test -list in examples: %v\n%s", err, out)
	}
	var names []string
	pkg := ""
	lines := strings.Split(string(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- { // each package's tests come before its "ok" line
		f := strings.Fields(lines[i])
		switch {
		case len(f) >= 2 && (f[0] == "ok" || f[0] == "?"):
			pkg = f[1]
		case len(f) == 1 && strings.HasPrefix(f[0], "Test"):
			names = append(names, pkg+"."+f[0])
		}
	}
	sort.Strings(names)
	return names
}

// goweaveOnPath returns PATH with the goweave under test first; GOWEAVE_BIN names it.
func goweaveOnPath(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("GOWEAVE_BIN")
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("GOWEAVE_BIN is not set (the goweave binary whose commands the examples run)")
		}
		t.Skip("GOWEAVE_BIN is not set: skipping the runs of the documented commands")
	}
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "goweave")); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// copyExamples copies examples/ to dir.
func copyExamples(t *testing.T, dir string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatal(err)
	}
}

// job is one run of a documented script: with shell, in dir, with env added.
type job struct {
	shell  []string
	script string
	dir    string
	env    []string
}

// run runs j and returns its exit status and stderr; err is for a script that could
// not be started.
func (j job) run() (status int, stderr string, err error) {
	cmd := exec.Command(j.shell[0], append(j.shell[1:], j.script)...)
	cmd.Dir = j.dir
	cmd.Env = append(os.Environ(), j.env...)
	var buf bytes.Buffer
	cmd.Stderr = &buf
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), buf.String(), nil
	}
	return 0, buf.String(), err
}

// run runs one job and returns its exit status, logging stderr when it is not 0.
func run(t *testing.T, j job) int {
	t.Helper()
	return runAll(t, []job{j})[0]
}

// runAll runs jobs at once, as a CI matrix or an Indexed Job runs its shards, and
// returns their exit statuses.
func runAll(t *testing.T, jobs []job) []int {
	t.Helper()
	statuses := make([]int, len(jobs))
	stderrs := make([]string, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() { statuses[i], stderrs[i], errs[i] = j.run() })
	}
	wg.Wait()
	for i, j := range jobs {
		if errs[i] != nil {
			t.Fatalf("%s: %v", j.script, errs[i])
		}
		if statuses[i] != 0 {
			t.Logf("%s exited %d; stderr:\n%s", j.script, statuses[i], stderrs[i])
		}
	}
	return statuses
}

// fuzzTime is the FUZZ_TIME the tests give the documented commands: long enough to find
// the examples' bugs, short enough for CI.
const fuzzTime = "8s"

// checkMerged checks a merged report and its SARIF: every test of examples/ once, at
// least one finding, and SARIF results for them at paths under prefix (relative, as
// code scanning wants).
func checkMerged(t *testing.T, merged report, sarifPath, prefix string) {
	t.Helper()
	if want := exampleTests(t); !slices.Equal(merged.testNames(), want) {
		t.Errorf("merged tests %v, want each test of examples/ once: %v", merged.testNames(), want)
	}
	if len(merged.Findings) == 0 {
		t.Error("the merged report has no finding; examples/ has four bugs")
	}
	data, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatal(err)
	}
	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &sarif); err != nil {
		t.Fatalf("SARIF %s: %v", sarifPath, err)
	}
	if sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != len(merged.Findings) {
		t.Fatalf("SARIF version %q with %d runs, want 2.1.0 with one run of %d results", sarif.Version, len(sarif.Runs), len(merged.Findings))
	}
	for _, r := range sarif.Runs[0].Results {
		uri := r.Locations[0].PhysicalLocation.ArtifactLocation.URI
		if !strings.HasPrefix(uri, prefix) || strings.Contains(uri, ":") {
			t.Errorf("SARIF location %q: want a path relative to the repository, under %q", uri, prefix)
		}
	}
}

// TestWorkflowCommands runs the workflow's fuzz step once per matrix shard, as Actions
// would (bash -eo pipefail, ${{ matrix.shard }} filled in, the job's env), in one
// checkout, then its merge and verdict steps there.
func TestWorkflowCommands(t *testing.T) {
	t.Parallel()
	path := goweaveOnPath(t)
	w := readWorkflow(t)
	checkout := t.TempDir()
	copyExamples(t, checkout)
	bash := []string{"bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"}
	env := []string{"PATH=" + path, "SHARDS=" + fmt.Sprint(w.Env["SHARDS"]), "FUZZ_TIME=" + fuzzTime}
	fuzz := w.step(t, "fuzz", "fuzz")
	var jobs []job
	for _, shard := range w.shards(t) {
		script := strings.ReplaceAll(fuzz, "${{ matrix.shard }}", strconv.Itoa(shard))
		if strings.Contains(script, "${{") {
			t.Fatalf("the fuzz step uses an expression this test does not fill in: %s", script)
		}
		jobs = append(jobs, job{bash, script, checkout, env})
	}
	var union []string
	for shard, status := range runAll(t, jobs) {
		if status != 0 {
			t.Fatalf("shard %d: the fuzz step failed (exit %d)", shard, status)
		}
		union = append(union, readReport(t, filepath.Join(checkout, fmt.Sprintf("goweave-shard-%d.json", shard))).testNames()...)
	}
	sort.Strings(union)
	if want := exampleTests(t); !slices.Equal(union, want) {
		t.Errorf("the shards fuzzed %v, want each test of examples/ in exactly one shard: %v", union, want)
	}
	if status := run(t, job{bash, w.step(t, "merge", "merge"), checkout, env}); status != 0 {
		t.Fatalf("the merge step failed (exit %d)", status)
	}
	checkMerged(t, readReport(t, filepath.Join(checkout, "goweave.json")), filepath.Join(checkout, "goweave.sarif"), "")
	if status := run(t, job{bash, w.step(t, "merge", "verdict"), checkout, env}); status != 1 {
		t.Errorf("the verdict step exited %d, want 1 (fail the workflow on findings)", status)
	}
}

// TestIndexedJobCommands runs the fuzz container's script once per completion index, as
// the Job's pods would (/bin/sh -c, JOB_COMPLETION_INDEX, the container's env), with the
// image's /src and the volume's /reports under a temporary directory, then the merge
// container's script; an index without tests must succeed too.
func TestIndexedJobCommands(t *testing.T) {
	t.Parallel()
	path := goweaveOnPath(t)
	j := readJobs(t)
	tmp := t.TempDir()
	moved := func(s string) string { // the image's and the volume's paths, under tmp
		return strings.NewReplacer("/src", tmp+"/src", "/reports", tmp+"/reports").Replace(s)
	}
	fuzzC, mergeC := j.fuzz.Spec.Template.Spec.Containers[0], j.merge.Spec.Template.Spec.Containers[0]
	module := moved(fuzzC.WorkingDir)
	copyExamples(t, module)
	if err := os.MkdirAll(moved("/reports"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh := []string{"/bin/sh", "-c"}
	var env []string
	for _, e := range fuzzC.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	env = append(env, "PATH="+path, "FUZZ_TIME="+fuzzTime) // last wins: the test's budget
	var jobs []job
	for i := 0; i < int(*j.fuzz.Spec.Completions); i++ {
		jobs = append(jobs, job{sh, moved(script(t, fuzzC)), module, append(slices.Clone(env), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))})
	}
	var union []string
	for i, status := range runAll(t, jobs) {
		if status != 0 {
			t.Fatalf("index %d: the fuzz pod would fail (exit %d)", i, status)
		}
		union = append(union, readReport(t, moved(fmt.Sprintf("/reports/shard-%d.json", i))).testNames()...)
	}
	sort.Strings(union)
	if want := exampleTests(t); !slices.Equal(union, want) {
		t.Errorf("the indexes fuzzed %v, want each test of examples/ in exactly one: %v", union, want)
	}
	cmd := exec.Command("/bin/sh", "-c", moved(script(t, mergeC)))
	cmd.Dir = moved(mergeC.WorkingDir)
	cmd.Env = append(os.Environ(), "PATH="+path)
	logs, err := cmd.Output() // what kubectl logs job/goweave-merge shows
	if err != nil {
		t.Fatalf("the merge pod would fail: %v", err)
	}
	rel, _ := filepath.Rel(moved(mergeC.WorkingDir), module)
	checkMerged(t, readReport(t, moved("/reports/goweave.json")), moved("/reports/goweave.sarif"), filepath.ToSlash(rel)+"/")
	if sarif, _ := os.ReadFile(moved("/reports/goweave.sarif")); !bytes.Equal(logs, sarif) {
		t.Error("the merge pod's output is not the SARIF file")
	}
}
