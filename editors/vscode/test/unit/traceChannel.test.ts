import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { LogLevel, TraceChannel, TraceSetting, traceSetting } from '../../src/traceChannel';

function sink() {
  const lines: string[] = [];
  return {
    lines,
    sink: {
      name: 'goweave (LSP trace)',
      append: (s: string) => lines.push(s),
      appendLine: (s: string) => lines.push(s),
      replace() {},
      clear() {},
      show() {},
      hide() {},
      dispose() {},
    },
  };
}

test('the level follows goweave.trace.server: Trace while messages or verbose, Info while off', () => {
  let setting: TraceSetting = 'messages';
  const { lines, sink: s } = sink();
  const ch = new TraceChannel(s, () => setting);
  assert.equal(ch.logLevel, LogLevel.Trace);
  ch.trace("Sending request 'initialize - (0)'.");
  assert.deepEqual(lines, ["Sending request 'initialize - (0)'."]);

  const seen: number[] = [];
  ch.onDidChangeLogLevel((l) => seen.push(l));
  setting = 'off';
  ch.settingChanged();
  assert.equal(ch.logLevel, LogLevel.Info);
  ch.trace('dropped');
  assert.equal(lines.length, 1);
  setting = 'verbose';
  ch.settingChanged();
  ch.settingChanged(); // no change, no event
  assert.deepEqual(seen, [LogLevel.Info, LogLevel.Trace]);
});

test('traceSetting reads unknown values as off', () => {
  assert.equal(traceSetting('messages'), 'messages');
  assert.equal(traceSetting('verbose'), 'verbose');
  assert.equal(traceSetting(undefined), 'off');
  assert.equal(traceSetting('loud'), 'off');
});
