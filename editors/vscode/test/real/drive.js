// Drives a real VS Code (code-server, started by run.sh) in headless Chromium with
// playwright-core, as a user would: opens the examples folder, a test file, waits for goweave's
// diagnostics, checks their ranges and related information against the examples' `// want`
// and `// related` annotations, runs each quick fix and the "fuzz this test" lens, and fails on
// any error notification or extension-host error. Every wait is bounded; every step leaves a
// screenshot in $SHOTS. Writes $SHOTS/summary.json; exit status 0 iff every check passed.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');

const env = (name, dflt) => {
  const v = process.env[name] ?? dflt;
  if (v === undefined) {
    throw new Error(`drive.js: $${name} is not set (run.sh sets it)`);
  }
  return v;
};
const CS_URL = env('CS_URL');
const FOLDER = env('FOLDER');
const SHOTS = env('SHOTS');
const USER_DATA = env('USER_DATA');
const GOWEAVE_BIN = env('GOWEAVE_BIN');
const CHROMIUM = env('CHROMIUM', '/usr/bin/chromium');
// Set when run.sh installed gopls-companion (gopls beside goweave, as with the Go extension).
const GOPLS = env('GOPLS', '');
// Waits are bounds, not pauses; they are generous because CI machines are shared and slow
// (TIMEOUT_SCALE multiplies them all).
const SCALE = Number(env('TIMEOUT_SCALE', '1'));
const DIAG_TIMEOUT = Number(env('DIAG_TIMEOUT_MS', '240000')) * SCALE;

// The package the test works in and the bug it must show (examples/metrics: a send that may
// run after the close it races with).
const PKG = 'metrics';
const TEST_FILE = 'metrics_test.go';
const BUG_FILE = 'metrics.go';
const KIND = 'send-on-closed';

const t0 = Date.now();
const secs = (from = t0) => Number(((Date.now() - from) / 1000).toFixed(1));
const log = (...a) => console.log(`[${secs()}s]`, ...a);
const summary = { timings: {}, checks: [], errorNotifications: [], consoleErrors: [] };

function check(name, ok, detail) {
  summary.checks.push({ name, ok: !!ok, detail });
  log(ok ? 'ok  ' : 'FAIL', name, detail === undefined ? '' : JSON.stringify(detail));
  return !!ok;
}

async function until(what, timeoutMs, probe, stepMs = 250) {
  timeoutMs *= SCALE;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

// The annotated lines of a file: [{line (1-based), kind, role: 'want'|'related', text}].
function annotations(file) {
  const out = [];
  fs.readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/\/\/ (want|related) "([a-z-]+)"/g)) {
      out.push({ line: i + 1, role: m[1], kind: m[2], text });
    }
  });
  return out;
}

let shotN = 0;
async function shot(page, name) {
  shotN++;
  const file = path.join(SHOTS, `${String(shotN).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file }).catch((e) => log('screenshot failed:', e.message));
}

const sel = {
  problemRow: '.markers-panel .monaco-list-row',
  lens: '.codelens-decoration a',
  quickInput: '.quick-input-widget input',
  quickInputRow: '.quick-input-list .monaco-list-row',
  actionRow: '.action-widget .monaco-list-row',
  toast: '.notifications-toasts .notification-toast',
  statusGoweave: '#goweave\\.goweave\\.status, .statusbar-item[id*="goweave"]',
  cursorStatus: '.statusbar-item[id="status.editor.selection"]',
};

// Error notifications seen so far: toasts are polled at every wait, the notification center is
// read at the end.
async function collectErrorToasts(page) {
  const items = await page.locator(`${sel.toast} .notification-list-item`).all();
  for (const item of items) {
    const isError = (await item.locator('.codicon-error, .codicon-notifications-error').count()) > 0;
    if (isError) {
      const text = (await item.locator('.notification-list-item-message').innerText().catch(() => '')).trim();
      if (text && !summary.errorNotifications.includes(text)) {
        summary.errorNotifications.push(text);
        log('ERROR NOTIFICATION:', text);
      }
    }
  }
}

async function toastTexts(page) {
  return page.locator(`${sel.toast} .notification-list-item-message`).allInnerTexts().catch(() => []);
}

async function openQuickInput(page, key) {
  // A quick input still closing would pass for the new one.
  await page.locator(sel.quickInput).waitFor({ state: 'hidden', timeout: 20000 * SCALE });
  await page.keyboard.press(key);
  await page.locator(sel.quickInput).waitFor({ state: 'visible', timeout: 20000 * SCALE });
  return page.locator(sel.quickInput);
}

// Opens the file called name with quick open (Ctrl+P), choosing the row of exactly that file
// (a fuzzy search for metrics.go also lists metrics_test.go, maybe first); tries again when
// the editor did not become active.
async function quickOpen(page, name) {
  for (let attempt = 1; ; attempt++) {
    const input = await openQuickInput(page, 'Control+P');
    await input.fill(name);
    // The first search of the folder can take long on a loaded machine.
    const index = await until(`"${name}" in quick open`, 90000, async () => {
      const rows = await page.locator(`${sel.quickInputRow} .label-name`).allInnerTexts();
      const i = rows.findIndex((t) => t.trim() === name);
      return i >= 0 ? i + 1 : undefined;
    });
    for (let k = 1; k < index; k++) {
      await page.keyboard.press('ArrowDown');
    }
    await page.keyboard.press('Enter');
    // The file is the active editor (the window title names it) and shows its text.
    const active = await until(`${name} to be the active editor`, 30000, async () => (await page.title()).startsWith(name + ' ')).then(
      () => true,
      (e) => {
        if (attempt === 2) {
          throw e;
        }
        return false;
      },
    );
    if (active) {
      break;
    }
    log(`${name} did not become the active editor; trying again`);
    await page.keyboard.press('Escape');
  }
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor({ timeout: 60000 * SCALE });
  log('opened', name);
}

async function runCommand(page, title) {
  const input = await openQuickInput(page, 'F1');
  await input.fill('>' + title);
  await until(`command "${title}"`, 15000, async () =>
    (await page.locator(sel.quickInputRow).allInnerTexts()).some((t) => t.includes(title)),
  );
  await page.keyboard.press('Enter');
  log('ran command', title);
}

async function goweaveStatus(page) {
  const item = page.locator('.statusbar-item', { hasText: /goweave/ }).first();
  if (!(await item.count())) {
    return { text: '', running: false };
  }
  const text = (await item.innerText().catch(() => '')).trim();
  const running = (await item.locator('[class*="codicon-sync"], [class*="codicon-loading"]').count()) > 0 || /fuzzing/.test(text);
  return { text, running };
}

// The goweave rows of the Problems panel, parsed: {text, line, col}.
async function goweaveProblems(page) {
  const rows = await page.locator(sel.problemRow).allInnerTexts();
  return rows
    .filter((r) => /goweave/.test(r))
    .map((text) => {
      const m = text.match(/\[Ln (\d+), Col (\d+)\]/);
      return { text: text.replace(/\s+/g, ' '), line: m ? Number(m[1]) : 0, col: m ? Number(m[2]) : 0 };
    });
}

async function cursor(page) {
  const t = await page.locator('.statusbar-item', { hasText: /^Ln \d+, Col \d+/ }).first().innerText().catch(() => '');
  const m = t.match(/Ln (\d+), Col (\d+)/);
  return m ? { line: Number(m[1]), col: Number(m[2]) } : undefined;
}

// Moves the cursor to line:col with quick open's "Go to Line/Column" (":line:col"; the
// browser keeps Ctrl+G for itself).
async function gotoPosition(page, line, col) {
  const input = await openQuickInput(page, 'Control+P');
  await input.fill(`:${line}:${col}`);
  await page.keyboard.press('Enter');
  await until(`cursor at ${line}:${col}`, 10000, async () => {
    const c = await cursor(page);
    return c && c.line === line && c.col === col;
  });
}

// The quick fixes at the cursor (Ctrl+.), as their titles (without the menu's group headers,
// which keyboard navigation skips); the menu stays open. A loaded server can answer late, so
// Ctrl+. is pressed again when no menu came.
async function quickFixes(page) {
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+.');
    const rows = await until('the quick fix menu', 30000, async () => {
      const r = await page.locator(`${sel.actionRow}:not(.group-header)`).allInnerTexts();
      return r.length ? r.map((x) => x.trim()).filter((x) => x !== '' && x !== 'Quick Fix') : undefined;
    }).catch((e) => {
      if (attempt === 3) {
        throw e;
      }
    });
    if (rows) {
      return rows;
    }
    await page.keyboard.press('Escape');
  }
}

// Runs the quick fix whose title matches re, by keyboard (clicking the action widget blocks).
async function runQuickFix(page, re) {
  const rows = await quickFixes(page);
  const i = rows.findIndex((r) => re.test(r));
  if (i < 0) {
    await page.keyboard.press('Escape');
    throw new Error(`no quick fix matching ${re} in ${JSON.stringify(rows)}`);
  }
  for (let k = 0; k < i; k++) {
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  log('ran quick fix', rows[i]);
}

// The files VS Code writes the output channels to, newest session first.
function outputLogs() {
  const root = path.join(USER_DATA, 'logs');
  const files = [];
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        walk(p);
      } else {
        files.push(p);
      }
    }
  };
  walk(root);
  return files;
}

// hostErrorBlocks splits the extension host log's [error] entries (a timestamped line and its
// untimestamped continuation, a stack) into the gopls companion's and everyone else's. An
// entry is the companion's when it names the companion's extension ID or its stack runs in
// the companion's files; VS Code logs a failed provider as two entries, the tagged "provider
// FAILED" and then the error itself.
function hostErrorBlocks(log) {
  const companionID = 'goweave-test.gopls-companion';
  const entries = [];
  for (const line of log.split('\n')) {
    if (/^\d{4}-\d\d-\d\d /.test(line) || entries.length === 0) {
      entries.push([line]);
    } else {
      entries[entries.length - 1].push(line);
    }
  }
  const own = [], companion = [];
  for (const e of entries) {
    if (!/\[error\]/.test(e[0])) continue;
    (e.some((l) => l.includes(companionID)) ? companion : own).push(e[0]);
  }
  return { own, companion };
}

function readLog(re) {
  return outputLogs()
    .filter((f) => re.test(path.basename(f)))
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
}

async function waitCampaignEnd(page, timeoutMs) {
  await until('the campaign to end', timeoutMs, async () => {
    await collectErrorToasts(page);
    return !(await goweaveStatus(page)).running;
  }, 1000);
}

async function main() {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    timeout: 60000,
  });
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(60000 * SCALE);
  page.on('console', (m) => {
    if (m.type() === 'error') {
      summary.consoleErrors.push(m.text());
    }
  });
  page.on('pageerror', (e) => summary.consoleErrors.push('pageerror: ' + e.message));
  try {
    await steps(page, context);
  } catch (e) {
    check('the run completed', false, String((e && e.stack) || e));
    await shot(page, 'error');
  } finally {
    await browser.close();
  }
}

async function steps(page, context) {
  const bugFile = path.join(FOLDER, PKG, BUG_FILE);
  const want = annotations(bugFile).find((a) => a.role === 'want' && a.kind === KIND);
  const related = annotations(bugFile).filter((a) => a.role === 'related' && a.kind === KIND);
  if (!want || related.length === 0) {
    throw new Error(`${bugFile} has no // want "${KIND}" and // related "${KIND}" lines`);
  }

  await page.goto(`${CS_URL}/?folder=${encodeURIComponent(FOLDER)}`, { timeout: 180000 * SCALE });
  await page.locator('.monaco-workbench').waitFor({ timeout: 180000 * SCALE });
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 180000 * SCALE });
  summary.timings.workbench = secs();
  log('workbench up');
  await page.keyboard.press('Control+Shift+M');
  await page.locator('.markers-panel').first().waitFor({ timeout: 60000 * SCALE });

  // 1. Opening the test file starts the extension and background fuzzing of its package.
  await quickOpen(page, TEST_FILE);
  const opened = Date.now();
  // The lenses and the first diagnostic are waited for at once: a restored finding may show
  // before the lenses do, and its time is measured from the open, not from the lenses.
  const lensesP = until('the code lenses', 60000, async () => {
    const l = await page.locator(sel.lens).allInnerTexts();
    return l.some((x) => /fuzz this test/.test(x)) ? l : undefined;
  }, 100).then((l) => {
    summary.timings.firstLensS = secs(opened);
    return l;
  });
  const problemsP = until('a goweave diagnostic in the Problems panel', DIAG_TIMEOUT, async () => {
    await collectErrorToasts(page);
    const p = await goweaveProblems(page);
    return p.some((x) => x.text.includes(KIND)) ? p : undefined;
  }, 100).then((p) => {
    summary.timings.firstDiagnosticS = secs(opened);
    return p;
  });
  const [lenses, problems] = await Promise.all([lensesP, problemsP]);
  check('code lenses above the test', lenses.some((x) => /fuzz this test/.test(x)), lenses);
  if (GOPLS) {
    // Beside gopls: its "run test" lens and goweave's "fuzz this test" share the line above a
    // test, one lens each, neither hidden by the other.
    const rows = await until('the gopls lens beside goweave\'s', 60000, async () => {
      const r = await page.locator('.codelens-decoration').allInnerTexts();
      return r.some((x) => /run test/.test(x) && /fuzz this test/.test(x)) ? r : undefined;
    }, 250);
    const row = rows.find((x) => /fuzz this test/.test(x) && /run test/.test(x));
    check('gopls and goweave lenses on one line, one each', row.match(/fuzz this test/g).length === 1 && row.match(/run test/g).length === 1, row);
  }
  log('first diagnostic', summary.timings.firstDiagnosticS, 's after opening', TEST_FILE);
  await shot(page, 'test-file-lenses');
  await shot(page, 'first-diagnostic');
  if (process.env.ONLY_FIRST_DIAGNOSTIC === '1') {
    // BENCHMARKS.md's time to the first diagnostic: nothing more to do.
    check('a first diagnostic', true, summary.timings.firstDiagnosticS);
    return;
  }

  // Ranges: the diagnostic starts at the send's `<-`, on the annotated line.
  const wantCol = want.text.indexOf('<-') + 1;
  const diag = problems.find((p) => p.text.includes(KIND));
  check(`${KIND} at ${BUG_FILE}:${want.line}:${wantCol} (the <- of the send)`, diag.line === want.line && diag.col === wantCol, diag);

  // Related information: VS Code lists it under the problem in the Problems panel.
  await until('the related information under the problem', 15000, async () => {
    const rows = await page.locator(sel.problemRow).allInnerTexts();
    return rows.some((r) => related.some((rel) => r.includes(`[Ln ${rel.line},`)));
  }).then(
    () => check(`related information at ${BUG_FILE}:${related.map((r) => r.line).join(',')}`, true),
    async () => check('related information', false, await page.locator(sel.problemRow).allInnerTexts()),
  );

  // The extension started the plain binary named in the User settings.
  const serverLog = readLog(/^\d+-goweave\.log$|^goweave\.log$/);
  check('the server is goweave.path from the User settings', serverLog.includes(`Starting ${GOWEAVE_BIN} serve (found via setting)`),
    serverLog.split('\n').find((l) => l.includes('Starting')));
  // goweave.trace.server: "messages" shows the LSP messages.
  const trace = readLog(/goweave \(LSP trace\)/);
  check('goweave.trace.server shows the LSP messages', /Sending request 'initialize/.test(trace) && /Received notification 'textDocument\/publishDiagnostics'/.test(trace),
    trace.split('\n').slice(0, 3));

  await waitCampaignEnd(page, 120000);
  summary.statusAfterBackground = (await goweaveStatus(page)).text;

  // 3. The quick fixes of the diagnostic, each run.
  await quickOpen(page, BUG_FILE);
  await gotoPosition(page, diag.line, diag.col);
  const fixes = await quickFixes(page);
  await shot(page, 'quick-fixes');
  await page.keyboard.press('Escape');
  await page.locator(sel.actionRow).first().waitFor({ state: 'hidden' });
  check('quick fixes: replay, timeline, fuzz again', ['Replay this bug', 'Show timeline', 'Fuzz this test again'].every((t) => fixes.some((f) => f.includes(t))), fixes);

  // Replay this bug: a notification says whether it happened again.
  let before = await toastTexts(page);
  await runQuickFix(page, /Replay this bug/);
  const replayStart = Date.now();
  const replayMsg = await until('the replay result', 120000, async () => {
    await collectErrorToasts(page);
    return (await toastTexts(page)).find((t) => /replay of/.test(t) && !before.includes(t));
  });
  summary.timings.replayS = secs(replayStart);
  check('replay reports its outcome', /confirmed|not reproduced/.test(replayMsg), replayMsg);
  await shot(page, 'replay');
  const afterReplay = await until('the replay to end', 60000, async () => {
    const st = await goweaveStatus(page);
    return st.running ? undefined : st.text;
  });
  check('the status bar keeps its findings count after a replay', /\b[1-9]\d* findings?\b/.test(afterReplay), afterReplay);

  // Show timeline.
  await gotoPosition(page, diag.line, diag.col);
  await runQuickFix(page, /Show timeline/);
  await timelineShown(page, context);
  await shot(page, 'timeline');
  await workbenchAnswers(page, 'after the timeline');
  await runCommand(page, 'View: Close Editor'); // the timeline panel, the active editor

  // Fuzz this test again: a campaign over the test runs and ends.
  await quickOpen(page, BUG_FILE);
  await gotoPosition(page, diag.line, diag.col);
  await runQuickFix(page, /Fuzz this test again/);
  await until('the campaign to start', 30000, async () => (await goweaveStatus(page)).running);
  await waitCampaignEnd(page, 120000);
  check('"Fuzz this test again" ran a campaign', true, (await goweaveStatus(page)).text);
  await shot(page, 'fuzz-again');

  // 4. The "fuzz this test" lens.
  await quickOpen(page, TEST_FILE);
  const lens = page.locator(sel.lens, { hasText: /^fuzz this test$/ }).first();
  await lens.waitFor({ timeout: 60000 * SCALE });
  await lens.click();
  await until('the lens campaign to start', 30000, async () => (await goweaveStatus(page)).running);
  await shot(page, 'lens-campaign');
  // While it runs, the lens above the test and the status bar count the same runs.
  summary.lensVsStatus = [];
  await until('the campaign to end', 120000, async () => {
    const st = await goweaveStatus(page);
    const lensText = (await page.locator(sel.lens).allInnerTexts()).find((t) => /fuzzing/.test(t)) || '';
    const runs = (t) => (t.match(/(\d+) runs?/) || [])[1];
    summary.lensVsStatus.push({ t: secs(), lens: runs(lensText), status: runs(st.text) });
    return !st.running;
  }, 500);
  const status = (await goweaveStatus(page)).text;
  check('the lens ran a campaign; the status bar shows its findings', /finding/.test(status), status);
  await shot(page, 'lens-campaign-done');
  // The lens counts the runs as the status bar does: it moves while the campaign runs, never
  // goes back, and keeps up: its last count is at least half the status bar's last. It
  // lags by up to one refresh (the server refreshes once the editor asked for the previous
  // lenses, the editor asks on its own schedule) and reverts to "fuzz this test" when the
  // campaign ends, so an exact catch-up depends on timing: it failed with the lens at 46
  // and the status bar at 50 half a second before the end (and at 26 against 27 on a
  // quiet machine). The defect this guards, refreshes that kept the lens at its first
  // count, left it at 20 of 59.
  const lensCounts = summary.lensVsStatus.filter((x) => x.lens !== undefined).map((x) => Number(x.lens));
  const statusCounts = summary.lensVsStatus.filter((x) => x.status !== undefined).map((x) => Number(x.status));
  const monotone = lensCounts.every((n, i) => i === 0 || n >= lensCounts[i - 1]);
  const moved = new Set(lensCounts.filter((n) => n > 0)).size >= 2;
  const caughtUp = lensCounts.length > 0 && statusCounts.length > 0 && 2 * lensCounts[lensCounts.length - 1] >= statusCounts[statusCounts.length - 1];
  check('the lens counts the runs the status bar counts', monotone && moved && caughtUp, summary.lensVsStatus);

  // 5. No error notification anywhere (the notification center keeps them all).
  await collectErrorToasts(page);
  await runCommand(page, 'Notifications: Show Notifications');
  await page.waitForTimeout(1000);
  const center = page.locator('.notifications-center .notification-list-item');
  for (const item of await center.all()) {
    if ((await item.locator('.codicon-error, .codicon-notifications-error').count()) > 0) {
      const text = (await item.locator('.notification-list-item-message').innerText().catch(() => '')).trim();
      if (!summary.errorNotifications.includes(text)) {
        summary.errorNotifications.push(text);
      }
    }
  }
  await shot(page, 'notifications');
  check('no error notification', summary.errorNotifications.length === 0, summary.errorNotifications);

  // Extension-host errors: the extension host's log and goweave's output channel.
  // An error of the gopls companion (VS Code logs a provider's rejected request, e.g. gopls's
  // "context canceled" for an inlay hint VS Code cancelled) is gopls's, not goweave's: it is
  // kept in the summary, not failed on.
  const exthost = readLog(/exthost\.log$/);
  const { own: hostErrors, companion } = hostErrorBlocks(exthost);
  summary.companionErrors = companion.slice(0, 5);
  check('no extension-host error', hostErrors.length === 0, hostErrors.slice(0, 5));
  const serverErrors = readLog(/^\d+-goweave\.log$|^goweave\.log$/).split('\n').filter((l) => /\[error\]/.test(l));
  check('no error in the goweave output channel', serverErrors.length === 0, serverErrors.slice(0, 5));
}

// timelineShown: the timeline of the finding opens in a webview panel of the workbench.
async function timelineShown(page) {
  const tab = await until('the timeline panel', 30000, async () => {
    await collectErrorToasts(page);
    const tabs = await page.locator('.tab').allInnerTexts();
    return tabs.find((t) => /timeline/i.test(t));
  }).catch(() => undefined);
  check('the timeline opens in a panel', tab, await page.locator('.tab').allInnerTexts());
}

// workbenchAnswers: F1 and Ctrl+P still open the quick input.
async function workbenchAnswers(page, when) {
  for (const key of ['F1', 'Control+P']) {
    const ok = await openQuickInput(page, key).then(() => true, () => false);
    check(`${key} works ${when}`, ok);
    await page.keyboard.press('Escape');
  }
}

main()
  .catch((e) => check('the driver ran', false, String(e)))
  .finally(() => {
    summary.ok = summary.checks.length > 0 && summary.checks.every((c) => c.ok);
    fs.writeFileSync(path.join(SHOTS, 'summary.json'), JSON.stringify(summary, null, 2));
    console.log('timings: ' + JSON.stringify(summary.timings));
    const failed = summary.checks.filter((c) => !c.ok);
    console.log(`real VS Code: ${summary.checks.length - failed.length} checks passed, ${failed.length} failed`);
    process.exit(summary.ok ? 0 : 1);
  });
