import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { presentResult } from '../../src/commandResult';

test('fuzzing commands show nothing (they report through progress)', () => {
  assert.deepEqual(presentResult('goweave.fuzz_test', { started: true }), { kind: 'none' });
  assert.deepEqual(presentResult('goweave.replay', null), { kind: 'none' });
});

test('timeline: opened by the server is only logged, else it opens in a webview panel', () => {
  assert.deepEqual(presentResult('goweave.show_timeline', { path: '/c/t/f1.html', opened: true }), { kind: 'log', text: 'timeline: /c/t/f1.html' });
  const panel = { kind: 'webview', path: '/c/t/f1.html', title: 'goweave timeline f1' };
  assert.deepEqual(presentResult('goweave.show_timeline', { path: '/c/t/f1.html', uri: 'file:///c/t/f1.html', opened: false }), panel);
  assert.deepEqual(presentResult('goweave.show_timeline', { path: '/c/t/f1.html' }), panel);
  assert.deepEqual(presentResult('goweave.show_timeline', { path: 'C:\\cache\\f2.html' }), { kind: 'webview', path: 'C:\\cache\\f2.html', title: 'goweave timeline f2' });
  assert.deepEqual(presentResult('goweave.show_timeline', 'g1: send'), { kind: 'document', text: 'g1: send' });
  assert.deepEqual(presentResult('goweave.show_timeline', { events: [1] }), { kind: 'document', text: '{\n  "events": [\n    1\n  ]\n}' });
});

test('replay results become one log line (the server shows the outcome itself)', () => {
  assert.deepEqual(
    presentResult('goweave.replay', { id: 'f1', reproduced: true, status: 'panic', panic: 'send on closed channel' }),
    { kind: 'log', text: 'replay f1: reproduced, status panic, panic: send on closed channel' },
  );
  assert.deepEqual(presentResult('goweave.replay', { id: 'f2', reproduced: false, status: 'pass' }), {
    kind: 'log', text: 'replay f2: not reproduced, status pass',
  });
  assert.deepEqual(presentResult('goweave.replay', { id: 'f3', reproduced: true, blocked: ['g1 at a.go:3', 'g2 at a.go:9'] }), {
    kind: 'log', text: 'replay f3: reproduced, blocked: g1 at a.go:3; g2 at a.go:9',
  });
  assert.deepEqual(presentResult('goweave.replay', 'done'), { kind: 'log', text: 'done' });
});
