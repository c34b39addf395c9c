// Checks that package.json (what VS Code reads) agrees with the code: settings, commands,
// activation.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { defaultSettings, strategies } from '../../src/settings';

const pkgRoot = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(pkgRoot, 'package.json'), 'utf8'));
const serverNames = Object.keys(defaultSettings);

test('package.json declares every server setting with the same default', () => {
  const props: Record<string, { default: unknown; enum?: string[] }> = pkg.contributes.configuration.properties;
  for (const name of serverNames) {
    const p = props[`goweave.${name}`];
    assert.ok(p, `goweave.${name} missing from package.json`);
    assert.deepEqual(p.default, (defaultSettings as unknown as Record<string, unknown>)[name], name);
  }
  assert.deepEqual(props['goweave.strategy'].enum, [...strategies]);
  const clientOnly = ['goweave.path', 'goweave.trace.server'];
  assert.deepEqual(
    Object.keys(props).filter((k) => !clientOnly.includes(k)).sort(),
    serverNames.map((n) => `goweave.${n}`).sort(),
  );
});

test('goweave.path is read from User settings in remote windows too (not a machine scope)', () => {
  // VS Code ignores User settings of scope machine and machine-overridable in remote windows
  // (SSH, WSL, containers, code-server), where users set goweave.path as anywhere else.
  const scope = pkg.contributes.configuration.properties['goweave.path'].scope;
  assert.ok(!['machine', 'machine-overridable', 'application'].includes(scope), `goweave.path scope ${scope}`);
});

test('every contributed command is registered by the extension, and only those', () => {
  const contributed: string[] = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
  const source = fs.readFileSync(path.join(pkgRoot, 'src', 'extension.ts'), 'utf8');
  const registered = [...source.matchAll(/register\('(goweave\.[A-Za-z]+)'/g)].map((m) => m[1]).sort();
  assert.deepEqual(registered, contributed);
  // Client command ids must not collide with the server's, which vscode-languageclient
  // registers itself from executeCommandProvider.
  for (const id of contributed) {
    assert.ok(!/_/.test(id) && !['goweave.replay', 'goweave.stop', 'goweave.clear'].includes(id), id);
  }
  for (const c of pkg.contributes.commands) {
    assert.ok(c.title && c.category === 'goweave', `${c.command} has a title in category goweave`);
  }
});

test('activation, entry point and engine', () => {
  // A Go workspace starts the server with the window, not when the first Go file opens: the
  // last campaign's findings then show the moment a test file opens (issue 22: <= 0.5 s).
  assert.deepEqual(pkg.activationEvents, ['onLanguage:go', 'workspaceContains:**/go.mod']);
  // One bundled file (esbuild, vscode external) ships; vsce adds no node_modules.
  assert.equal(pkg.main, './dist/extension.js');
  assert.match(pkg.scripts.bundle, /^esbuild src\/extension\.ts --bundle .*--external:vscode .*--outfile=dist\/extension\.js$/);
  assert.match(pkg.scripts['vscode:prepublish'], /npm run bundle/);
  assert.equal(pkg.vsce?.dependencies, false);
  assert.ok(fs.existsSync(path.join(pkgRoot, 'src', 'extension.ts')));
  assert.equal(pkg.engines.vscode, '^1.91.0');
  assert.equal(pkg.devDependencies['@types/vscode'], '~1.91.0', '@types/vscode must not be newer than engines.vscode');
  assert.equal(pkg.license, 'MIT');
});
