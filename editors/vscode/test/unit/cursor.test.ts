import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { findingAtLine, testAtLine } from '../../src/cursor';

const src = `package p

import "testing"

func TestSend(t *testing.T) {
	go func() {
	}()
}

func helper() {}

func Testable(t *testing.T) {}

func Test(t *testing.T) {}

func TestBench(b *testing.B) {}

func Test_under(t *testing.T) {
}
`.split('\n');

test('test around the cursor', () => {
  assert.equal(testAtLine(src, 4), 'TestSend');
  assert.equal(testAtLine(src, 6), 'TestSend');
  assert.equal(testAtLine(src, 9), undefined, 'helper is not a test');
  assert.equal(testAtLine(src, 11), undefined, 'Testable is not a test name');
  assert.equal(testAtLine(src, 13), 'Test');
  assert.equal(testAtLine(src, 15), undefined, 'takes *testing.B');
  assert.equal(testAtLine(src, 18), 'Test_under');
  assert.equal(testAtLine(src, 1), undefined);
  assert.equal(testAtLine(src, 999), 'Test_under');
});

test('finding at the cursor line', () => {
  const diags = [
    { source: 'gopls', startLine: 5, endLine: 5, data: { id: 'gopls-thing' } },
    { source: 'goweave', startLine: 10, endLine: 10, data: { id: 'f-10' } },
    { source: 'goweave', startLine: 12, endLine: 13, data: { id: 'f-12' } },
    { source: 'goweave', startLine: 20, endLine: 20 },
  ];
  assert.equal(findingAtLine(diags, 10), 'f-10');
  assert.equal(findingAtLine(diags, 13), 'f-12');
  assert.equal(findingAtLine(diags, 5), undefined, 'other sources are ignored');
  assert.equal(findingAtLine(diags, 20), undefined, 'no data.id');
  assert.equal(findingAtLine(diags, 11), undefined);
  assert.equal(findingAtLine(diags, 11, 1), 'f-10', 'nearest within slack, first wins a tie');
  assert.equal(findingAtLine(diags, 14, 1), 'f-12');
});
