import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { defaultSettings, didChangeConfigurationParams, isGoDuration, readServerSettings, ServerSettings } from '../../src/settings';

const serverNames = ['backgroundFuzzing', 'budgetPerTest', 'runsPerTest', 'strategy', 'parallel', 'race', 'packages', 'maxCampaigns', 'analysisMemory'];

test('defaults are the server contract', () => {
  assert.deepEqual(defaultSettings, {
    backgroundFuzzing: true,
    budgetPerTest: '20s',
    runsPerTest: 100,
    strategy: 'auto',
    parallel: 0,
    race: true,
    packages: ['./...'],
    maxCampaigns: 1,
    analysisMemory: 0,
  });
});

test('unset settings give the defaults and no problems', () => {
  const r = readServerSettings(() => undefined);
  assert.deepEqual(r.settings, defaultSettings);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(Object.keys(r.settings).sort(), [...serverNames].sort());
});

test('user values are passed through unchanged', () => {
  const user: ServerSettings = {
    backgroundFuzzing: false,
    budgetPerTest: '1m30s',
    runsPerTest: 0,
    strategy: 'gopie',
    parallel: 3,
    race: false,
    packages: ['./internal/...', './cmd/x'],
    maxCampaigns: 2,
    analysisMemory: 2048,
  };
  const r = readServerSettings((name) => user[name]);
  assert.deepEqual(r.settings, user);
  assert.deepEqual(r.problems, []);
});

test('invalid values fall back to the default with an explanation', () => {
  const bad: Record<string, unknown> = {
    backgroundFuzzing: 'yes',
    budgetPerTest: '20 seconds',
    runsPerTest: -1,
    strategy: 'random',
    parallel: 1.5,
    race: 1,
    packages: [],
    maxCampaigns: 0,
    analysisMemory: -1,
  };
  const r = readServerSettings((name) => bad[name]);
  assert.deepEqual(r.settings, defaultSettings);
  assert.equal(r.problems.length, serverNames.length);
  assert.ok(r.problems.some((p) => p.startsWith('goweave.budgetPerTest is "20 seconds"') && p.includes('using "20s"')));
  assert.ok(r.problems.some((p) => p.startsWith('goweave.strategy is "random"') && p.includes('gopie')));
});

test('the defaults object is not shared with results', () => {
  const r = readServerSettings(() => undefined);
  r.settings.packages.push('./x');
  assert.deepEqual(defaultSettings.packages, ['./...']);
});

test('Go durations', () => {
  for (const ok of ['20s', '0', '1m30s', '500ms', '1.5h', '.5s', '2h45m0.5s', '10us', '3µs']) {
    assert.ok(isGoDuration(ok), ok);
  }
  for (const bad of ['', '20', 's', '1d', '-5s', '20 s', '1m 30s', '5sec']) {
    assert.ok(!isGoDuration(bad), bad);
  }
});

test('didChangeConfiguration nests the settings under the goweave section', () => {
  const s = readServerSettings(() => undefined).settings;
  assert.deepEqual(didChangeConfigurationParams(s), { settings: { goweave: s } });
});
