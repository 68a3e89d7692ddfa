package report

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/agentspine/spine/analysis"
	"github.com/agentspine/spine/runlog"
)

var update = flag.Bool("update", false, "write the README's screenshot of a report (docs/trace-report.png)")

// screenshot is where -update writes the picture the README shows.
const screenshot = "../docs/trace-report.png"

// mapScreenshot is the README's picture of `spine check --analyze --html rules/ggs.yaml`.
const mapScreenshot = "../docs/decision-map.png"

// chromium finds Debian's chromium. CI installs it (.ci/run), so there its absence fails
// the test; elsewhere the test is skipped with a message.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; .ci/run installs it (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium): the report's browser test is skipped")
	return ""
}

// browser starts a headless chromium for one test, as root may run it on a machine
// without a network: no sandbox, no GPU, nothing fetched in the background, a fresh
// profile.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoSandbox,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1360, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	// The first Run starts the browser and must not carry a timeout (it would end the
	// browser); the test's steps run under one below.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	tctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	return tctx
}

// console collects what a page reports as wrong: console errors and warnings,
// uncaught exceptions, and browser log entries of those levels (a resource that failed
// to load, a refused script).
type console struct {
	ctx      context.Context
	mu       sync.Mutex
	messages []chromedp.ConsoleMessage
	marker   string        // the settle mark problems waits for
	marked   chan struct{} // closed when it arrives
	stop     context.CancelFunc
	done     chan struct{}
}

// settleMark is the console message problems has the page write last; the browser
// sends a target's console events in order, so once it arrives, so have all before it.
const settleMark = "spine-test: the page has settled"

func listen(ctx context.Context) *console {
	cctx, stop := context.WithCancel(ctx)
	c := &console{ctx: ctx, stop: stop, done: make(chan struct{}), marked: make(chan struct{})}
	messages := chromedp.Console(cctx)
	go func() {
		defer close(c.done)
		closed := false
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Text == settleMark {
				if !closed {
					close(c.marked)
					closed = true
				}
				continue
			}
			c.mu.Lock()
			c.messages = append(c.messages, m)
			c.mu.Unlock()
		}
	}()
	return c
}

// settle waits until the page has loaded and every task it had queued before (a
// setTimeout(…, 0), an event handler) has run.
func settle(ctx context.Context, writeMark bool) error {
	mark := ""
	if writeMark {
		mark = fmt.Sprintf("console.debug(%q);", settleMark)
	}
	js := `new Promise(function (r) {
  function go() { setTimeout(function () { ` + mark + ` r(true); }, 0); }
  if (document.readyState === "complete") { go(); } else { addEventListener("load", go); }
})`
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
	return err
}

// problems waits until the page has settled and its console messages up to then have
// arrived, ends the listening, and returns the messages of level warning and above.
func (c *console) problems() []string {
	err := settle(c.ctx, true)
	if err == nil {
		select {
		case <-c.marked:
		case <-c.ctx.Done():
			err = c.ctx.Err()
		}
	}
	c.stop()
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	if err != nil {
		out = append(out, fmt.Sprintf("waiting for the page to settle: %v", err))
	}
	for _, m := range c.messages {
		if m.IsException() || m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning {
			out = append(out, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
		}
	}
	return out
}

// load writes the page of a trace to a file and opens it in the browser, listening to
// its console from before it loads.
func load(t *testing.T, ctx context.Context, trace string) (*Report, *console, string) {
	t.Helper()
	// Named as from the repository's root, as a user there would give it.
	r, err := Build(strings.TrimPrefix(trace, "../"), readFixture(t, trace))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Render(f, r); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	c := listen(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	return r, c, path
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func count(t *testing.T, ctx context.Context, selector string) int {
	t.Helper()
	return eval[int](t, ctx, fmt.Sprintf("document.querySelectorAll(%q).length", selector))
}

func TestBrowserReport(t *testing.T) {
	ctx := browser(t)
	trace := "../fixtures/pipeline/change_path_then_accept.trace.jsonl"
	r, c, path := load(t, ctx, trace)

	rounds, err := runlog.Rounds(trace, readFixture(t, trace))
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds.Rounds) < 2 {
		t.Fatalf("%s has %d rounds; the test wants a run of several", trace, len(rounds.Rounds))
	}
	// One point per round in each series, in round order, each with its round's directive.
	for _, s := range []string{"D", "P", "Omega", "L"} {
		sel := fmt.Sprintf(`svg#loss-plot circle.pt[data-series=%q]`, s)
		if n := count(t, ctx, sel); n != len(rounds.Rounds) {
			t.Errorf("series %s: %d points, want one per round (%d)", s, n, len(rounds.Rounds))
		}
		got := eval[[]string](t, ctx, fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).map(e => e.dataset.round + ":" + e.dataset.directive)`, sel))
		var want []string
		for _, rd := range rounds.Rounds {
			want = append(want, fmt.Sprintf("%d:%s", rd.Round, rd.Directive))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("series %s: points %v, want %v", s, got, want)
		}
	}
	if n := count(t, ctx, "svg#loss-plot .dirlabel"); n != len(rounds.Rounds) {
		t.Errorf("%d directive labels on the plot, want %d", n, len(rounds.Rounds))
	}
	for _, th := range []string{"delta", "rho", "theta"} {
		if n := count(t, ctx, fmt.Sprintf(`svg#loss-plot [data-threshold=%q] line`, th)); n != 1 {
			t.Errorf("threshold %s: %d lines, want 1", th, n)
		}
	}
	if n := count(t, ctx, "details.item"); n != len(r.Items) || n == 0 {
		t.Errorf("%d exchanges and messages on the page, want %d", n, len(r.Items))
	}

	// A model call opens on a click and shows its request and response.
	var model string
	for _, it := range r.Items {
		if it.Kind == "model" {
			model = "#" + it.Anchor
			break
		}
	}
	if model == "" {
		t.Fatalf("%s has no model call", trace)
	}
	isOpen := func(sel string) bool { return eval[bool](t, ctx, fmt.Sprintf("document.querySelector(%q).open", sel)) }
	if isOpen(model) {
		t.Fatalf("%s is open before a click", model)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(model+" > summary"))); err != nil {
		t.Fatal(err)
	}
	text := eval[string](t, ctx, fmt.Sprintf("document.querySelector(%q).innerText", model+" .body"))
	if !isOpen(model) || !strings.Contains(text, "REQUEST MESSAGES") || !strings.Contains(text, "REPLY") || strings.Contains(text, "RESPONSE") {
		t.Errorf("%s after a click: open %v, text %.300q", model, isOpen(model), text)
	}
	// Its request and response as recorded open one level down.
	raw := model + " details.raw"
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(raw+" > summary"))); err != nil {
		t.Fatal(err)
	}
	text = eval[string](t, ctx, fmt.Sprintf("document.querySelector(%q).innerText", raw))
	if !isOpen(raw) || !strings.Contains(text, "REQUEST") || !strings.Contains(text, "RESPONSE") || !strings.Contains(text, `"messages": [`) {
		t.Errorf("%s after a click: open %v, text %.300q", raw, isOpen(raw), text)
	}
	// A lane's entry opens the exchange it names; expand all opens every one.
	last := "#" + r.Items[len(r.Items)-1].Anchor
	// The page's own hashchange listener opens it; one added now runs after it.
	hashed := `window.__hashed = new Promise(function (r) { addEventListener("hashchange", function () { r(true); }, {once: true}); }); true`
	if !eval[bool](t, ctx, hashed) {
		t.Fatal("could not listen for the hash change")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`.lane a[href=%q]`, last)))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__hashed`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	if !isOpen(last) {
		t.Errorf("following the lane's link to %s did not open it", last)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#expand-all"))); err != nil {
		t.Fatal(err)
	}
	if n := count(t, ctx, "details.item:not([open])"); n != 0 {
		t.Errorf("expand all left %d exchanges closed", n)
	}
	for _, p := range c.problems() {
		t.Errorf("%s: %s", trace, p)
	}

	if *update {
		// The top of a fresh page: overview, loss plot and the first rounds.
		if err := chromedp.Do(ctx,
			chromedp.EmulateViewport(1360, 1440),
			chromedp.Navigate("file://"+path),
			chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(screenshot), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(screenshot, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", screenshot)
	}
}

// TestBrowserConsoleProbe makes sure the console check sees what it must catch: a page
// that logs an error and throws fails it.
func TestBrowserConsoleProbe(t *testing.T) {
	ctx := browser(t)
	path := filepath.Join(t.TempDir(), "probe.html")
	if err := os.WriteFile(path, []byte(`<!DOCTYPE html><title>probe</title><p>probe</p><script>console.error("probe error"); setTimeout(function () { throw new Error("probe exception"); }, 0);</script><footer></footer>`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := listen(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.problems(), "\n")
	if !strings.Contains(got, "probe error") || !strings.Contains(got, "probe exception") {
		t.Errorf("the console check saw %q, want the probe's error and exception", got)
	}
}

// TestBrowserHostileTrace loads the page of a trace whose strings try to become markup:
// nothing of it runs, and it shows as text.
func TestBrowserHostileTrace(t *testing.T) {
	ctx := browser(t)
	_, c, _ := load(t, ctx, hostile)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#expand-all"))); err != nil {
		t.Fatal(err)
	}
	// Whatever the expanded text might have started (an image's onerror) has run.
	if err := settle(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `typeof window.__pwned`); got != "undefined" {
		t.Errorf("the trace's script ran: window.__pwned is %s", got)
	}
	if n := eval[int](t, ctx, `document.images.length + document.querySelectorAll("svg image, iframe, object, embed").length`); n != 0 {
		t.Errorf("the page has %d images or frames; the trace's markup became elements", n)
	}
	if n := eval[int](t, ctx, `document.scripts.length`); n != 1 {
		t.Errorf("the page has %d scripts, want only its own", n)
	}
	text := eval[string](t, ctx, `document.body.innerText`)
	if n := strings.Count(text, payload); n < 20 {
		t.Errorf("the payload shows as text %d times, want 20 or more", n)
	}
	for _, p := range c.problems() {
		t.Errorf("%s: %s", hostile, p)
	}
}

// TestBrowserEveryFixture loads the page of every fixture: no console error, one point
// per round in each series, a page without a plot when the rule set has no rounds.
func TestBrowserEveryFixture(t *testing.T) {
	ctx := browser(t)
	for _, f := range fixtures(t) {
		r, c, _ := load(t, ctx, f)
		for _, s := range []string{"D", "P", "Omega", "L"} {
			if n := count(t, ctx, fmt.Sprintf(`svg#loss-plot circle.pt[data-series=%q]`, s)); n != len(r.Loss.Rounds) {
				t.Errorf("%s: series %s has %d points, want %d", f, s, n, len(r.Loss.Rounds))
			}
		}
		if n := count(t, ctx, "tr.decision"); n != len(r.Decisions) {
			t.Errorf("%s: %d conflict sets on the page, want %d", f, n, len(r.Decisions))
		}
		for _, p := range c.problems() {
			t.Errorf("%s: %s", f, p)
		}
	}
}

// TestBrowserStory checks what the page tells of a run: R7's directive in the round it
// concludes, why a failed run ended, a bar per call on the time axis with the failed
// ones marked, and the step-through of the rule cycles moved by the keyboard.
func TestBrowserStory(t *testing.T) {
	ctx := browser(t)
	const pipeline = "../fixtures/pipeline/change_path_then_accept.trace.jsonl"
	r, c, _ := load(t, ctx, pipeline)

	// Round 1's R7 lane holds round 1's directive (sent in iteration 2's mint).
	lane := eval[string](t, ctx, `document.querySelector('#round-1 .lane[data-role="R7"]').innerText`)
	if !strings.Contains(lane, "PlanDirective: change_path") {
		t.Errorf("round 1's R7 lane reads %q, want round 1's change_path directive", lane)
	}
	if lane2 := eval[string](t, ctx, `document.querySelector('#round-2 .lane[data-role="R7"]').innerText`); strings.Contains(lane2, "PlanDirective") {
		t.Errorf("round 2's R7 lane reads %q: round 1's directive drawn a round late", lane2)
	}

	// One bar per model and tool call, in its role's group; failed tool calls marked.
	var calls, failed int
	for _, it := range r.Items {
		if it.Kind == "model" || it.Kind == "tool" {
			calls++
			if it.Failed {
				failed++
			}
		}
	}
	if n := count(t, ctx, "svg#waterfall-plot rect.bar"); n != calls || n == 0 {
		t.Errorf("%d bars on the waterfall, want one per call (%d)", n, calls)
	}
	if n := count(t, ctx, `svg#waterfall-plot rect.bar[data-outcome="failed"]`); n != failed || n == 0 {
		t.Errorf("%d bars marked failed, want %d", n, failed)
	}
	if n := count(t, ctx, `svg#waterfall-plot g.wf-group[data-role="R3"] rect.bar`); n == 0 {
		t.Error("no bars in R3's group")
	}
	// Every bar has width and lies inside the axis, and links to its exchange.
	bad := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("svg#waterfall-plot rect.bar")).filter(function (b) {
  var bb = b.getBBox(), a = b.parentNode.getAttribute("href");
  return !(bb.width > 0 && bb.x >= 150 && bb.x + bb.width <= 1151 && a && document.getElementById(a.slice(1)));
}).map(function (b) { return b.dataset.anchor; })`)
	if len(bad) > 0 {
		t.Errorf("bars out of the axis, without width or without their exchange: %v", bad)
	}

	// The step-through: one cycle shown; → and j forward, ← and k back, held at the ends.
	shown := func() string {
		return eval[string](t, ctx, `Array.from(document.querySelectorAll(".step")).filter(function (s) { return !s.hidden; }).map(function (s) { return s.dataset.step + ":" + s.dataset.cycle; }).join(",") + " " + document.getElementById("step-pos").textContent`)
	}
	n := len(r.Cycles)
	if got, want := shown(), fmt.Sprintf("1:%d 1 / %d", r.Cycles[0].Cycle, n); got != want {
		t.Fatalf("step-through at load shows %q, want %q", got, want)
	}
	for i, key := range []string{kb.ArrowRight, "j", "j", "j", kb.ArrowLeft, "k", "k", "k"} {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(key)); err != nil {
			t.Fatal(err)
		}
		want := []int{2, 3, 4, 4, 3, 2, 1, 1}[i]
		if got := shown(); got != fmt.Sprintf("%d:%d %d / %d", want, r.Cycles[want-1].Cycle, want, n) {
			t.Errorf("after key %d (%q) the step-through shows %q, want step %d", i+1, key, got, want)
		}
	}
	step := eval[string](t, ctx, `document.querySelector('.step[data-step="3"]').textContent`)
	for _, want := range []string{"select_objective", "change_path_stuck_environmental", "working memory after", "objective"} {
		if !strings.Contains(step, want) {
			t.Errorf("step 3 lacks %q: %.400q", want, step)
		}
	}
	if n := count(t, ctx, `.step[data-step="3"] tr.changed`); n != 1 {
		t.Errorf("step 3 marks %d facts changed, want the objective", n)
	}
	for _, p := range c.problems() {
		t.Errorf("%s: %s", pipeline, p)
	}

	// A failed run says why it ended, and its failed model call is drawn red.
	_, c, _ = load(t, ctx, failedModel)
	why := eval[string](t, ctx, `document.querySelector("#overview #ending.failed").innerText`)
	for _, want := range []string{"Why the run ended", "abandon", "model_unavailable", "check OPENAI_API_KEY"} {
		if !strings.Contains(why, want) {
			t.Errorf("the failed run's overview lacks %q: %q", want, why)
		}
	}
	colour := func(sel string) string {
		return eval[string](t, ctx, fmt.Sprintf(`getComputedStyle(document.querySelector(%q)).fill`, sel))
	}
	if got := colour(`rect.bar[data-anchor="ev-5"]`); got != "rgb(185, 28, 28)" {
		t.Errorf("the failed model call's bar is %s, want red", got)
	}
	if got := colour(`rect.bar[data-anchor="ev-3"]`); got != "rgb(245, 158, 11)" {
		t.Errorf("the retried model call's bar is %s, want amber", got)
	}
	border := eval[string](t, ctx, `getComputedStyle(document.querySelector('.lane li.out-failed a')).borderLeftColor`)
	if border != "rgb(185, 28, 28)" {
		t.Errorf("the failed model call's lane entry has border %s, want red", border)
	}
	for _, p := range c.problems() {
		t.Errorf("%s: %s", failedModel, p)
	}
}

// TestBrowserDecisionMap: the decision map of rules/ggs.yaml has every region of seed
// 000's cascade, each coloured as its rule in the legend, and a trace's report draws the
// run's rounds on it.
func TestBrowserDecisionMap(t *testing.T) {
	ctx := browser(t)
	path := filepath.Join(t.TempDir(), "map.html")
	if err := WriteMapFile(path, "../rules/ggs.yaml", analysis.FileCheck{Analyze: true}, ""); err != nil {
		t.Fatal(err)
	}
	c := listen(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatal(err)
	}
	got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("figure.mappanel")).map(function (f) {
  return Array.from(f.querySelectorAll("g.region")).map(function (g) { return g.dataset.rule; }).join(" ");
})`)
	want := []string{
		"change_path_stuck_environmental abandon_budget_spent",
		"success_within_delta change_path_stuck_environmental",
		"refine_moving_environmental change_path_stuck_environmental refine_moving_environmental change_approach_moving_logical break_symmetry_stuck_logical change_approach_moving_logical",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("regions by panel:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Each region is filled with its rule's colour in the legend, and different rules differ.
	mismatch := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("g.region")).filter(function (g) {
  var key = document.querySelector('.maplegend span[data-rule="' + g.dataset.rule + '"] i');
  return !key || getComputedStyle(key).backgroundColor !== getComputedStyle(g.querySelector("rect")).fill;
}).map(function (g) { return g.dataset.rule; })`)
	if len(mismatch) > 0 {
		t.Errorf("regions not in their rule's colour: %v", mismatch)
	}
	if n := eval[int](t, ctx, `new Set(Array.from(document.querySelectorAll("figure.mappanel:nth-of-type(3) g.region rect")).map(function (r) { return getComputedStyle(r).fill; })).size`); n != 4 {
		t.Errorf("the action grid has %d colours, want 4 (one per action rule)", n)
	}
	for _, p := range c.problems() {
		t.Errorf("%s: %s", path, p)
	}
	if *update {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mapScreenshot, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", mapScreenshot)
	}

	// The trace's report: one point per round in every panel, in round order.
	const f = "../fixtures/ggs/refine_then_accept.trace.jsonl"
	r, c, _ := load(t, ctx, f)
	var rounds []string
	for _, rd := range r.Loss.Rounds {
		rounds = append(rounds, strconv.Itoa(rd.Round))
	}
	pts := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#decision-map figure.mappanel")).map(function (f) {
  return Array.from(f.querySelectorAll("g.roundpt")).map(function (g) { return g.dataset.round; }).join(" ");
})`)
	if len(pts) != 3 {
		t.Fatalf("%d panels in the trace's map, want 3", len(pts))
	}
	for i, p := range pts {
		if p != strings.Join(rounds, " ") {
			t.Errorf("panel %d: round points %q, want %q", i+1, p, strings.Join(rounds, " "))
		}
	}
	if n := count(t, ctx, "#decision-map polyline.runpath"); n != 3 {
		t.Errorf("%d run paths, want one per panel", n)
	}
	for _, p := range c.problems() {
		t.Errorf("%s: %s", f, p)
	}
}
