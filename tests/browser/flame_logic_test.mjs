// The flame graph's pure logic (web/flame.js) under node's test runner: reading a FLAMEGRAPH
// reply's text, the inclusive tree with the state frames of the off-CPU views, the differential
// tree's normalisation, and which frames a finding's function names.
// Usage: node --test tests/browser/flame_logic_test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { carryCounts, diffTree, functionOf, parseFlameGraph, profileTree, sameFunction } from '../../web/flame.js';

const reply = `<DYPER_REPLY ID='4711'><FLAMEGRAPH PID='4711' VIEW='offcpu' PHASE='1' FROM='2.5' TO='7' SAMPLES='10' TOTAL='40' TRUNCATED='2'>`
  + `<PATH COUNT='6' STATE='lock'>main (app);update_shared_table (app);__lll_lock_wait (libc.so.6)</PATH>`
  + `<PATH COUNT='3' STATE='sleep'>main (app);operator&lt;&lt; (app);nanosleep (libc.so.6)</PATH>`
  + `<PATH COUNT='1' STATE='io'>start_thread (libc.so.6);read_records (app);read (libc.so.6)</PATH>`
  + `</FLAMEGRAPH></DYPER_REPLY>`;

test('a FLAMEGRAPH reply read as text: attributes, paths, escapes', () => {
  const r = parseFlameGraph(reply);
  assert.deepEqual(r.attributes, { PID: '4711', VIEW: 'offcpu', PHASE: '1', FROM: '2.5', TO: '7', SAMPLES: '10', TOTAL: '40', TRUNCATED: '2' });
  assert.equal(r.paths.length, 3);
  assert.deepEqual(r.paths[1], { count: 3, state: 'sleep', frames: 'main (app);operator<< (app);nanosleep (libc.so.6)' });
});

test('the tree is inclusive along the call paths; off-CPU views end each path with its state', () => {
  const tree = profileTree(parseFlameGraph(reply), true);
  assert.equal(tree.value, 10);
  const main = tree.children.find(c => c.name === 'main (app)');
  assert.equal(main.value, 9);
  const lock = main.index.get('update_shared_table (app)').index.get('__lll_lock_wait (libc.so.6)').index.get('[lock]');
  assert.equal(lock.value, 6);
  assert.equal(lock.state, 'lock');
  assert.equal(main.state, 'mixed');
  // On-CPU views have no state frames.
  const plain = profileTree(parseFlameGraph(reply), false);
  assert.equal(plain.children.find(c => c.name === 'main (app)').index.get('update_shared_table (app)').index.get('__lll_lock_wait (libc.so.6)').children.length, 0);
});

test('the differential tree: shares of each side\'s TOTAL, width both shares, change after - before', () => {
  const side = (text) => { const r = parseFlameGraph(text); return { tree: profileTree(r, true), total: Number(r.attributes.TOTAL) }; };
  const before = side(`<FLAMEGRAPH SAMPLES='50' TOTAL='100'><PATH COUNT='50' STATE='running'>main (a);crunch_numbers (a)</PATH></FLAMEGRAPH>`);
  const after = side(`<FLAMEGRAPH SAMPLES='30' TOTAL='300'><PATH COUNT='30' STATE='lock'>main (a);update_shared_table (a)</PATH></FLAMEGRAPH>`);
  const d = diffTree(before, after);
  const main = d.children[0];
  const crunch = main.children.find(c => c.name === 'crunch_numbers (a)');
  const update = main.children.find(c => c.name === 'update_shared_table (a)');
  assert.equal(crunch.before, 0.5);
  assert.equal(crunch.after, 0);
  assert.equal(crunch.delta, -0.5);
  assert.ok(crunch.value > 0, 'a frame that vanished is still drawn');
  assert.equal(update.delta, 0.1);
  assert.equal(main.delta, 0.1 - 0.5);
  assert.equal(update.children[0].name, '[lock]');
});

test('a finding\'s function names its frames, in a namespace or class too', () => {
  assert.equal(functionOf('(anonymous namespace)::tokenize (pc_cpu)'), '(anonymous namespace)::tokenize');
  assert.equal(functionOf('[lock]'), '[lock]');
  assert.ok(sameFunction('(anonymous namespace)::tokenize', 'tokenize'));
  assert.ok(sameFunction('tokenize', 'tokenize'));
  assert.ok(!sameFunction('detokenize', 'tokenize'));
});

test('a drawn tree kept for a new one takes its counts; call paths gone from it count 0', () => {
  const path = (count, frames, state = 'running') => `<PATH COUNT='${count}' STATE='${state}'>${frames}</PATH>`;
  const reply = (paths) => `<DYPER_REPLY ID='1'><FLAMEGRAPH PID='1' VIEW='cpu' PHASE='0' SAMPLES='0' TOTAL='0'>${paths.join('')}</FLAMEGRAPH></DYPER_REPLY>`;
  const drawn = profileTree(parseFlameGraph(reply([path(5, 'main;work;a'), path(3, 'main;work;b'), path(2, 'main;idle')])), false);
  const next = profileTree(parseFlameGraph(reply([path(7, 'main;work;a'), path(4, 'main;idle', 'sleep'), path(1, 'main;new')])), false);
  carryCounts(drawn, next);
  const main = drawn.children[0];
  assert.equal(drawn.value, 12);
  assert.equal(main.value, 12);
  assert.equal(main.index.get('work').value, 7);
  assert.equal(main.index.get('work').index.get('a').value, 7);
  assert.equal(main.index.get('work').index.get('b').value, 0);  // gone
  assert.equal(main.index.get('idle').value, 4);
  assert.equal(main.index.get('idle').state, 'sleep');
  assert.equal(main.index.has('new'), false);  // not drawn: its count is in main's
});
