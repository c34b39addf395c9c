import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { findBinary, LookupEnvironment } from '../../src/binary';

function machine(executables: string[], env: Record<string, string>, platform: NodeJS.Platform = 'linux'): LookupEnvironment {
  const set = new Set(executables);
  return { env, platform, homedir: platform === 'win32' ? 'C:\\Users\\gopher' : '/home/gopher', isExecutable: (p) => set.has(p) };
}

test('configured path wins over PATH', () => {
  const r = findBinary('/opt/goweave', machine(['/opt/goweave', '/usr/bin/goweave'], { PATH: '/usr/bin' }));
  assert.deepEqual(r, { found: true, path: '/opt/goweave', source: 'setting' });
});

test('configured path with ~ is expanded', () => {
  const r = findBinary('~/bin/goweave', machine(['/home/gopher/bin/goweave'], {}));
  assert.deepEqual(r, { found: true, path: '/home/gopher/bin/goweave', source: 'setting' });
});

test('a configured path missing on this machine (a remote window) falls back to the search, with a warning', () => {
  const r = findBinary('/Users/me/go/bin/goweave', machine(['/usr/bin/goweave'], { PATH: '/usr/bin' }));
  assert.equal(r.found, true);
  assert.ok(r.found && r.path === '/usr/bin/goweave' && r.source === 'PATH');
  assert.ok(r.found && r.warning?.includes('goweave.path is set to "/Users/me/go/bin/goweave", but that is not an executable file on this machine'));
  assert.ok(r.found && r.warning?.includes('using /usr/bin/goweave'));
});

test('a wrong configured path with nothing else found is an error naming the setting', () => {
  const r = findBinary('/nowhere/goweave', machine([], { PATH: '/usr/bin' }));
  assert.equal(r.found, false);
  assert.ok(!r.found && r.message.includes('goweave.path is set to "/nowhere/goweave"'));
  assert.ok(!r.found && r.message.includes('go install github.com/goweave/goweave/cmd/goweave@latest'));
});

test('a found configured path carries no warning', () => {
  const r = findBinary('/opt/goweave', machine(['/opt/goweave'], {}));
  assert.ok(r.found && r.warning === undefined);
});

test('first PATH entry holding goweave is used', () => {
  const r = findBinary('', machine(['/b/goweave', '/c/goweave'], { PATH: '/a::/b:/c' }));
  assert.deepEqual(r, { found: true, path: '/b/goweave', source: 'PATH' });
});

test('go install locations are searched after PATH, in GOBIN, GOPATH/bin, ~/go/bin order', () => {
  const env = { PATH: '/usr/bin', GOBIN: '/gobin', GOPATH: '/gp1:/gp2' };
  assert.deepEqual(findBinary(undefined, machine(['/gobin/goweave', '/gp2/bin/goweave'], env)), {
    found: true, path: '/gobin/goweave', source: 'GOBIN',
  });
  assert.deepEqual(findBinary(undefined, machine(['/gp2/bin/goweave', '/home/gopher/go/bin/goweave'], env)), {
    found: true, path: '/gp2/bin/goweave', source: 'GOPATH',
  });
  assert.deepEqual(findBinary(undefined, machine(['/home/gopher/go/bin/goweave'], env)), {
    found: true, path: '/home/gopher/go/bin/goweave', source: 'home',
  });
});

test('nothing found explains how to install', () => {
  const r = findBinary('  ', machine([], { PATH: '/usr/bin' }));
  assert.equal(r.found, false);
  assert.ok(!r.found && /not found on PATH/.test(r.message));
  assert.ok(!r.found && r.message.includes('go install ./cmd/goweave'));
});

test('windows looks for goweave.exe with ; separated PATH', () => {
  const r = findBinary('', machine(['C:\\tools\\goweave.exe'], { Path: 'C:\\bin;C:\\tools' }, 'win32'));
  assert.deepEqual(r, { found: true, path: 'C:\\tools\\goweave.exe', source: 'PATH' });
});
