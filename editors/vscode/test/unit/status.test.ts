import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { CampaignStatus, parseCounts } from '../../src/status';

test('counts are read from progress messages', () => {
  assert.deepEqual(parseCounts('TestSend: 40 runs, 1 finding'), { runs: 40, findings: 1 });
  assert.deepEqual(parseCounts('1 run, 3 findings'), { runs: 1, findings: 3 });
  assert.deepEqual(parseCounts('completed: no findings'), { findings: 0 });
  assert.deepEqual(parseCounts('building test binary'), {});
  assert.deepEqual(parseCounts(undefined), {});
  assert.deepEqual(parseCounts('12 runs'), { runs: 12 });
});

test('idle before any campaign', () => {
  const s = new CampaignStatus();
  assert.deepEqual(s.view(), { text: '$(beaker) goweave', tooltip: 'goweave: no campaign has run yet.', running: false });
});

test('one campaign: percentage, runs and findings while running, result after end', () => {
  const s = new CampaignStatus();
  s.update('t1', { kind: 'begin', title: 'goweave: fuzzing TestSend', cancellable: true, percentage: 0 });
  assert.equal(s.view().text, '$(sync~spin) goweave: 0%');
  assert.equal(s.view().running, true);
  s.update('t1', { kind: 'report', message: '40 runs, 1 finding', percentage: 40 });
  assert.equal(s.view().text, '$(sync~spin) goweave: 40%, 40 runs, 1 finding');
  assert.match(s.view().tooltip, /fuzzing TestSend \(40%\): 40 runs, 1 finding\nClick to stop fuzzing\./);
  s.update('t1', { kind: 'report', percentage: 75 });
  assert.equal(s.view().text, '$(sync~spin) goweave: 75%, 40 runs, 1 finding');
  s.update('t1', { kind: 'end', message: 'completed: 100 runs, 2 findings' });
  assert.deepEqual(s.view(), {
    text: '$(bug) goweave: 2 findings',
    tooltip: 'Last campaign: goweave: fuzzing TestSend: completed: 100 runs, 2 findings',
    running: false,
  });
});

test('a clean campaign ends with a check mark', () => {
  const s = new CampaignStatus();
  s.update(7, { kind: 'begin', title: 'fuzz', message: '0 runs, 0 findings' });
  s.update(7, { kind: 'end', message: 'completed' });
  assert.equal(s.view().text, '$(check) goweave: 0 findings');
});

test('several campaigns are summed', () => {
  const s = new CampaignStatus();
  s.update('a', { kind: 'begin', title: 'A' });
  s.update('b', { kind: 'begin', title: 'B' });
  s.update('a', { kind: 'report', message: '10 runs, 1 finding' });
  s.update('b', { kind: 'report', message: '5 runs, 0 findings' });
  assert.equal(s.running, 2);
  assert.equal(s.view().text, '$(sync~spin) goweave: 2 campaigns, 15 runs, 1 finding');
  s.update('a', { kind: 'end' });
  assert.equal(s.running, 1);
  assert.equal(s.view().text, '$(sync~spin) goweave: 5 runs, 0 findings');
});

test('progress of unknown tokens is ignored, reset forgets running campaigns', () => {
  const s = new CampaignStatus();
  s.update('x', { kind: 'report', message: '3 runs' });
  s.update('x', { kind: 'end' });
  assert.equal(s.view().text, '$(beaker) goweave');
  s.update('y', { kind: 'begin', title: 'Y' });
  s.reset();
  assert.equal(s.running, 0);
  assert.equal(s.view().running, false);
});

test('idle, the count is the findings shown now: a replay does not lose it, a clear empties it', () => {
  const s = new CampaignStatus();
  assert.equal(s.view(0).text, '$(beaker) goweave');
  s.update('c', { kind: 'begin', title: 'fuzzing ./metrics', message: '0 runs, 0 findings' });
  s.update('c', { kind: 'end', message: 'completed: 100 runs, 1 finding' });
  assert.equal(s.view(1).text, '$(bug) goweave: 1 finding');
  // A replay's progress ends without counts.
  s.update('r', { kind: 'begin', title: 'replaying send-on-closed', message: 'TestX' });
  assert.equal(s.view(1).running, true);
  s.update('r', { kind: 'end', message: 'confirmed: send-on-closed happened again in TestX' });
  assert.equal(s.view(1).text, '$(bug) goweave: 1 finding');
  assert.match(s.view(1).tooltip, /replaying send-on-closed: confirmed/);
  assert.equal(s.view(0).text, '$(check) goweave: 0 findings');
  // Findings from before this window's campaigns (a restart) count too.
  assert.equal(new CampaignStatus().view(2).text, '$(bug) goweave: 2 findings');
});
