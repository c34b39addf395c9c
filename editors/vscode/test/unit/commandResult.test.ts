import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { presentResult } from '../../src/commandResult';

test('fuzzing commands show nothing (they report through progress)', () => {
  assert.deepEqual(presentResult('goweave.fuzz_test', { started: true }), { kind: 'none' });
  assert.deepEqual(presentResult('goweave.replay', null), { kind: 'none' });
});

test('timeline results open as a document', () => {
  assert.deepEqual(presentResult('goweave.show_timeline', 'g1: send\ng2: close'), { kind: 'document', text: 'g1: send\ng2: close' });
  assert.deepEqual(presentResult('goweave.show_timeline', { timeline: 'T' }), { kind: 'document', text: 'T' });
  assert.deepEqual(presentResult('goweave.show_timeline', { events: [1] }), { kind: 'document', text: '{\n  "events": [\n    1\n  ]\n}' });
});

test('replay results become a message', () => {
  assert.deepEqual(presentResult('goweave.replay', { reproduced: true, message: 'send on closed channel' }), {
    kind: 'message', text: 'goweave: Replay reproduced the bug. send on closed channel', isError: false,
  });
  assert.deepEqual(presentResult('goweave.replay', { reproduced: false }), {
    kind: 'message', text: 'goweave: Replay did not reproduce the bug.', isError: false,
  });
  assert.deepEqual(presentResult('goweave.replay', 'done'), { kind: 'message', text: 'done', isError: false });
});
