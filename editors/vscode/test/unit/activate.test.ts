// Activates the extension against a fake `vscode` module (no real VS Code can run here):
// checks the commands it registers and what a user without the goweave binary sees.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const Module = require('node:module') as { _load: (request: string, ...rest: unknown[]) => unknown };

// anything is a stand-in for the parts of the vscode API that vscode-languageclient touches
// when it is loaded; the extension's own calls are faked explicitly below.
function anything(): unknown {
  const f = function () {
    return anything();
  };
  return new Proxy(f as unknown as Record<string | symbol, unknown>, {
    get(target, p) {
      if (p === 'then') {
        return undefined;
      }
      if (!(p in target)) {
        target[p] = anything();
      }
      return target[p];
    },
    construct() {
      return anything() as object;
    },
    apply() {
      return anything();
    },
  });
}

// The namespaces the extension itself uses are listed: the bundle (esbuild) copies the own
// properties of the vscode module at load, so it does not see names only the proxy answers.
function fakeVscode(config: Record<string, unknown>) {
  const seen = {
    commands: [] as string[],
    errors: [] as string[],
    log: [] as string[],
    status: { text: '', tooltip: '' as unknown, command: '' as unknown, shown: false },
  };
  const disposable = { dispose() {} };
  const api = new Proxy(
    {
      window: {
        createOutputChannel: () => ({
          appendLine: (s: string) => seen.log.push(s),
          info: (s: string) => seen.log.push(s),
          show() {},
          dispose() {},
        }),
        createStatusBarItem: () =>
          Object.assign(seen.status, {
            show() {
              seen.status.shown = true;
            },
            dispose() {},
          }),
        // Never answers, like a message the user has not dismissed: activation must not wait.
        showErrorMessage: (msg: string) => {
          seen.errors.push(msg);
          return new Promise(() => {});
        },
        showWarningMessage: async () => undefined,
      },
      commands: {
        registerCommand: (id: string) => {
          seen.commands.push(id);
          return disposable;
        },
      },
      workspace: {
        getConfiguration: () => ({
          get: (k: string) => config[k],
          inspect: (k: string) => (k in config ? { globalValue: config[k] } : undefined),
        }),
        onDidChangeConfiguration: () => disposable,
      },
      languages: {
        onDidChangeDiagnostics: () => disposable,
        getDiagnostics: () => [],
      },
      StatusBarAlignment: { Left: 1, Right: 2 },
    } as Record<string, unknown>,
    {
      get(target, p: string) {
        return p in target ? target[p] : anything();
      },
    },
  );
  return { api, seen };
}

// The compiled sources, and the bundle that ships in the .vsix (npm run bundle) when it was
// built: the bundle must activate the same way.
const bundle = path.resolve(__dirname, '../../../dist/extension.js');
const builds: [string, string][] = [['sources', '../../src/extension']];
if (fs.existsSync(bundle)) {
  builds.push(['bundle', bundle]);
}

for (const [name, entry] of builds) test(`activate without a goweave binary (${name}): commands registered, install instructions shown`, async () => {
  const { api, seen } = fakeVscode({ path: '' });
  const load = Module._load;
  Module._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? api : load.call(this, request, ...rest);
  };
  const saved = { PATH: process.env.PATH, HOME: process.env.HOME, GOPATH: process.env.GOPATH, GOBIN: process.env.GOBIN };
  process.env.PATH = '/nonexistent';
  process.env.HOME = '/nonexistent';
  process.env.GOPATH = '/nonexistent';
  delete process.env.GOBIN;
  try {
    const extension = require(entry) as { activate(ctx: unknown): Promise<void> };
    await extension.activate({ subscriptions: [] });
  } finally {
    Module._load = load;
    Object.assign(process.env, saved);
  }
  const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));
  assert.deepEqual(seen.commands.sort(), pkg.contributes.commands.map((c: { command: string }) => c.command).sort());
  assert.equal(seen.errors.length, 1, `one error message: ${JSON.stringify(seen.errors)}`);
  assert.match(seen.errors[0], /not found on PATH/);
  assert.match(seen.errors[0], /go install github\.com\/goweave\/goweave\/cmd\/goweave@latest/);
  assert.equal(seen.status.text, '$(warning) goweave: not installed');
  assert.equal(seen.status.shown, true);
  assert.ok(seen.log.some((l) => l.includes('go install')), 'the output channel explains too');
});
