// End to end: drives the real `goweave serve` the way the extension's language client does
// (vscode-languageserver-protocol, LSP 3.17 client capabilities) over a buggy test file, from
// initialize to exit.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  CodeAction,
  CodeLens,
  Command,
  Diagnostic,
  DiagnosticSeverity,
  InitializeResult,
} from 'vscode-languageserver-protocol/node';

import { didChangeConfigurationParams, readServerSettings } from '../../src/settings';
import { parseCounts } from '../../src/status';
import { copyFixture, goweaveBinary, lineOf, makeTempDir, Session } from './session';

// What the extension sends for a user who turned background fuzzing off and asked for a
// short campaign: the same function the extension uses maps the user's values.
const userSettings: Record<string, unknown> = { backgroundFuzzing: false, budgetPerTest: '30s', runsPerTest: 60 };
const settings = readServerSettings((name) => userSettings[name]).settings;

const serverCommands = [
  'goweave.fuzz_test',
  'goweave.fuzz_package',
  'goweave.stop',
  'goweave.replay',
  'goweave.clear',
  'goweave.show_timeline',
];

let tmp: string;
let session: Session;
let moduleDir: string;
let fileUri: string;
let fileText: string;

before(() => {
  tmp = makeTempDir();
  const bin = goweaveBinary(tmp);
  moduleDir = copyFixture('sendafterclose', tmp);
  const file = path.join(moduleDir, 'readings_test.go');
  fileUri = pathToFileURL(file).toString();
  fileText = fs.readFileSync(file, 'utf8');
  session = new Session(bin, moduleDir, settings);
});

after(() => {
  session?.kill();
  if (tmp && !process.env.GOWEAVE_KEEP_TMP) {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('goweave serve end to end: lenses, fuzzing, diagnostics, replay, exit', { timeout: 840_000 }, async (t) => {
  const c = session.connection;

  await t.test('initialize advertises lenses, code actions and the six commands', async () => {
    const rootUri = pathToFileURL(moduleDir).toString();
    const result: InitializeResult = await c.sendRequest('initialize', {
      processId: process.pid,
      clientInfo: { name: 'goweave-vscode-e2e', version: '0.1.0' },
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: 'sendafterclose' }],
      initializationOptions: settings,
      capabilities: {
        general: { positionEncodings: ['utf-16'] },
        window: { workDoneProgress: true, showMessage: {}, showDocument: { support: true } },
        workspace: {
          configuration: true,
          workspaceFolders: true,
          didChangeConfiguration: { dynamicRegistration: false },
          executeCommand: { dynamicRegistration: false },
          codeLens: { refreshSupport: true },
        },
        textDocument: {
          synchronization: { didSave: true, dynamicRegistration: false },
          publishDiagnostics: {
            relatedInformation: true,
            versionSupport: true,
            codeDescriptionSupport: true,
            dataSupport: true,
          },
          codeLens: { dynamicRegistration: false },
          codeAction: {
            dataSupport: true,
            codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'source'] } },
          },
        },
      },
    });
    const caps = result.capabilities;
    assert.ok(caps.codeLensProvider, 'codeLensProvider');
    assert.ok(caps.codeActionProvider, 'codeActionProvider');
    assert.deepEqual([...(caps.executeCommandProvider?.commands ?? [])].sort(), [...serverCommands].sort());
    await c.sendNotification('initialized', {});
    await c.sendNotification('workspace/didChangeConfiguration', { settings: { goweave: settings } });
    await c.sendNotification('textDocument/didOpen', {
      textDocument: { uri: fileUri, languageId: 'go', version: 1, text: fileText },
    });
  });

  let fuzzLens: CodeLens | undefined;
  await t.test('one "fuzz this test" lens per test, at its func line', async () => {
    const lenses: CodeLens[] = (await c.sendRequest('textDocument/codeLens', { textDocument: { uri: fileUri } })) ?? [];
    const testLenses = lenses.filter((l) => l.command?.command === 'goweave.fuzz_test');
    const byTest = new Map(testLenses.map((l) => [(l.command!.arguments![0] as { test: string }).test, l]));
    assert.deepEqual([...byTest.keys()].sort(), ['TestAverage', 'TestFirstReading']);
    assert.equal(testLenses.length, 2, 'exactly one lens per test');
    for (const [name, lens] of byTest) {
      assert.equal(lens.range.start.line, lineOf(fileText, `func ${name}(`), `${name} lens line`);
      assert.match(lens.command!.title, /fuzz/i);
      assert.deepEqual(lens.command!.arguments, [{ uri: fileUri, test: name }]);
    }
    const pkgLens = lenses.filter((l) => l.command?.command === 'goweave.fuzz_package');
    assert.equal(pkgLens.length, 1, 'one "fuzz package tests" lens');
    assert.equal(pkgLens[0].range.start.line, lineOf(fileText, 'package readings'));
    fuzzLens = byTest.get('TestFirstReading');
  });

  let bug: Diagnostic | undefined;
  await t.test('running the lens fuzzes the test: $/progress begin..end and a send-on-closed diagnostic', async () => {
    assert.ok(fuzzLens, 'needs the lens of the previous step');
    const token = 'e2e-fuzz-test';
    session.watchProgress(token);
    await c.sendRequest('workspace/executeCommand', {
      command: fuzzLens.command!.command,
      arguments: fuzzLens.command!.arguments,
      workDoneToken: token,
    });
    const wantLine = lineOf(fileText, '// want "send-on-closed"');
    const relatedLine = lineOf(fileText, '// related "send-on-closed"');
    bug = await session.waitFor('a send-on-closed diagnostic', 180_000, () =>
      session.diagnosticsOf(fileUri).find((d) => d.code === 'send-on-closed'),
    );
    // The campaign must end (its progress ended) within its budget.
    const ended = await session.waitFor('$/progress end', 120_000, () => {
      const begun = session.progress.filter((p) => p.value.kind === 'begin').map((p) => p.token);
      return session.progress.find((p) => p.value.kind === 'end' && begun.includes(p.token));
    });
    const events = session.progress.filter((p) => p.token === ended.token).map((p) => p.value.kind);
    assert.equal(events[0], 'begin', `progress of token ${ended.token}: ${events}`);
    assert.equal(events[events.length - 1], 'end');

    assert.equal(bug.source, 'goweave');
    assert.equal(bug.range.start.line, wantLine, `diagnostic line (message: ${bug.message})`);
    assert.ok(bug.severity === DiagnosticSeverity.Error || bug.severity === DiagnosticSeverity.Warning, `severity ${bug.severity}`);
    const related = bug.relatedInformation ?? [];
    assert.ok(
      related.some((r) => r.location.uri === fileUri && r.location.range.start.line === relatedLine),
      `relatedInformation should point at the close on line ${relatedLine + 1}: ${JSON.stringify(related)}`,
    );
    const id = (bug.data as { id?: unknown } | undefined)?.id;
    assert.equal(typeof id, 'string', `data.id: ${JSON.stringify(bug.data)}`);
    const unexpected = session
      .diagnosticsOf(fileUri)
      .filter((d) => d.source === 'goweave' && d.range.start.line !== wantLine && d.range.start.line !== relatedLine);
    assert.deepEqual(unexpected, [], 'no diagnostics away from the annotated lines');
  });

  await t.test('the "Replay this bug" code action replays the finding', async () => {
    assert.ok(bug, 'needs the diagnostic of the previous step');
    const id = (bug.data as { id: string }).id;
    const actions: (CodeAction | Command)[] =
      (await c.sendRequest('textDocument/codeAction', {
        textDocument: { uri: fileUri },
        range: bug.range,
        context: { diagnostics: [bug], triggerKind: 1 },
      })) ?? [];
    const commandOf = (a: CodeAction | Command): Command | undefined =>
      typeof (a as Command).command === 'string' ? (a as Command) : (a as CodeAction).command;
    const replay = actions.map(commandOf).find((cmd) => cmd?.command === 'goweave.replay');
    const timeline = actions.map(commandOf).find((cmd) => cmd?.command === 'goweave.show_timeline');
    assert.ok(replay, `a goweave.replay action among ${JSON.stringify(actions)}`);
    assert.ok(timeline, 'a goweave.show_timeline action');
    assert.match(actions.find((a) => commandOf(a) === replay)!.title, /replay/i);
    assert.deepEqual(replay.arguments, [{ id }]);
    assert.deepEqual(timeline.arguments, [{ id }]);

    const told = session.messages.length;
    const result = (await c.sendRequest('workspace/executeCommand', { command: replay.command, arguments: replay.arguments })) as {
      id?: string;
      reproduced?: boolean;
      status?: string;
      panic?: string;
    } | null;
    assert.ok(result, 'goweave.replay returns its outcome');
    assert.equal(result.id, id);
    assert.equal(result.reproduced, true, `replay outcome: ${JSON.stringify(result)}`);
    const message = await session.waitFor('the replay message', 10_000, () =>
      session.messages.slice(told).find((m) => m.message.includes(id)),
    );
    assert.match(message.message, /confirmed/, 'the user is told the bug happened again');
    // A reproduced finding is republished as confirmed.
    await session.waitFor('the confirmed diagnostic', 10_000, () =>
      session.diagnosticsOf(fileUri).find((d) => (d.data as { id?: string })?.id === id && /confirmed/.test(typeof d.message === 'string' ? d.message : d.message.value)),
    );
  });

  await t.test('the "Show timeline" code action writes the page and asks the editor to open it', async () => {
    assert.ok(bug, 'needs the diagnostic of the earlier step');
    const id = (bug.data as { id: string }).id;
    const actions: (CodeAction | Command)[] =
      (await c.sendRequest('textDocument/codeAction', {
        textDocument: { uri: fileUri },
        range: bug.range,
        context: { diagnostics: [bug], triggerKind: 1 },
      })) ?? [];
    const timeline = actions
      .map((a) => (typeof (a as Command).command === 'string' ? (a as Command) : (a as CodeAction).command))
      .find((cmd) => cmd?.command === 'goweave.show_timeline');
    assert.ok(timeline, 'a goweave.show_timeline action');
    const result = (await c.sendRequest('workspace/executeCommand', {
      command: timeline.command,
      arguments: timeline.arguments,
    })) as { path?: string; opened?: boolean } | null;
    assert.ok(result?.path, `show_timeline result: ${JSON.stringify(result)}`);
    assert.equal(result.opened, true);
    const shown = session.shownDocuments.find((d) => d.uri === pathToFileURL(result.path!).toString());
    assert.ok(shown, `window/showDocument for ${result.path}: ${JSON.stringify(session.shownDocuments)}`);
    assert.equal(shown.external, true, 'an HTML page opens outside the editor');
    const html = fs.readFileSync(result.path, 'utf8');
    assert.match(html, /<html/i);
    assert.ok(html.includes('send-on-closed'), 'the page names the bug kind');
    assert.ok(html.includes(id) || html.includes('readings_test.go'), 'the page is about this finding');
  });

  await t.test('changed settings apply; goweave.stop cancels a package campaign', async () => {
    // The old limit (runsPerTest 60, two tests) allows 120 runs at most. The new budget is
    // long and the wait for run 121 generous: a loaded machine (race detector on, other
    // builds) runs a few tests a second; a quiet one gets there in seconds.
    const changed: Record<string, unknown> = { ...userSettings, runsPerTest: 0, budgetPerTest: '600s' };
    const unlimited = readServerSettings((name) => changed[name]).settings;
    await c.sendNotification('workspace/didChangeConfiguration', didChangeConfigurationParams(unlimited));
    const before = session.progress.length;
    await c.sendRequest('workspace/executeCommand', { command: 'goweave.fuzz_package', arguments: [{ uri: fileUri }] });
    const begin = await session.waitFor('the package campaign to begin', 30_000, () =>
      session.progress.slice(before).find((p) => p.value.kind === 'begin'),
    );
    await session.waitFor('more runs than runsPerTest 60 allows', 300_000, () =>
      session.progress.slice(before).find(
        (p) => p.token === begin.token && p.value.kind === 'report' && (parseCounts(p.value.message).runs ?? 0) > 120,
      ),
    );
    const result = (await c.sendRequest('workspace/executeCommand', { command: 'goweave.stop', arguments: [{}] })) as {
      stopped?: number;
    } | null;
    assert.ok(result && typeof result.stopped === 'number' && result.stopped >= 1, `goweave.stop result: ${JSON.stringify(result)}`);
    const end = await session.waitFor('the campaign to end', 30_000, () =>
      session.progress.find((p) => p.token === begin.token && p.value.kind === 'end'),
    );
    assert.match((end.value as { message?: string }).message ?? '', /cancel/);
  });

  await t.test('shutdown and exit end the server with status 0', async () => {
    const code = await session.shutdown(2_000);
    assert.equal(code, 0, `exit code (null: still running 2 s after exit, VS Code would kill it); stderr tail:\n${session.stderr.slice(-2000)}`);
  });
});
