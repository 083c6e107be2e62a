// The dashboard page's pure logic under node's test runner: reading a FLAMEGRAPH reply's text,
// the inclusive tree with the state frames of the off-CPU views, the differential tree's
// normalisation, which frames a finding's function names; the XML helpers and a TIMELINE
// reply; one colour per thread state; the chart libraries index.html loads, as
// web/package.json lists them and npm installed them; the search form's defaults.
// Usage: node --test tests/browser/page_logic_test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { carryCounts, diffTree, functionOf, parseFlameGraph, profileTree, sameFunction } from '../../web/charts/flame.js';
import { parseTimeline } from '../../web/charts/timeline.js';
import { threadStateColour, threadStateColours } from '../../web/charts/thread_states.js';
import { bytesText, fileTotals, isFileResource, topFiles } from '../../web/panels/files.js';
import { attr, attributes, startTagAttributes, unescapeXml } from '../../web/xml.js';

const web = new URL('../../web/', import.meta.url);

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

test('a path written in another form than the engine\'s is read too, none lost', () => {
  const r = parseFlameGraph(`<FLAMEGRAPH SAMPLES='3' TOTAL='3'><PATH COUNT='2' STATE='io'>a;b</PATH>`
    + `<PATH STATE='lock' COUNT='1'>a;c&amp;d</PATH><PATH COUNT='4'>e</PATH></FLAMEGRAPH>`);
  assert.deepEqual(r.paths, [
    { count: 2, state: 'io', frames: 'a;b' },
    { count: 1, state: 'lock', frames: 'a;c&d' },
    { count: 4, state: '', frames: 'e' },
  ]);
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

test('XML: escapes, entities and character references, attributes', () => {
  assert.equal(attr(`a<b & 'c' "d">`), 'a&lt;b &amp; &apos;c&apos; &quot;d&quot;&gt;');
  assert.equal(unescapeXml(attr(`a<b & 'c' "d">`)), `a<b & 'c' "d">`);
  assert.equal(unescapeXml('x&#x41;&#66;&#x1F600;&amp;lt;'), 'xAB\u{1F600}&lt;');
  assert.equal(unescapeXml('no entity'), 'no entity');
  assert.deepEqual(attributes(`<RUN FROM='1.5' FUNCTION='operator&lt;&lt; (app)'/>`), { FROM: '1.5', FUNCTION: 'operator<< (app)' });
  assert.deepEqual(startTagAttributes(`<DYPER_REPLY ID='1'><TIMELINE PID='7' FROM='0'>`, 'TIMELINE'), { PID: '7', FROM: '0' });
  assert.deepEqual(startTagAttributes(`<DYPER_REPLY ID='1'/>`, 'TIMELINE'), {});
});

test('a TIMELINE reply read as text: threads, runs, escapes', () => {
  const t = parseTimeline(`<DYPER_REPLY ID='9'><TIMELINE PID='9' FROM='1' TO='3.5'>`
    + `<THREAD TID='9' NAME='main'><RUN FROM='1' TO='2' STATE='running' FUNCTION='crunch (a)'/><RUN FROM='2' TO='3.5' STATE='sleep'/></THREAD>`
    + `<THREAD TID='10' NAME='a&amp;b'><RUN FROM='1' TO='3.5' STATE='lock' FUNCTION='operator&lt; (a)'/></THREAD></TIMELINE></DYPER_REPLY>`);
  assert.equal(t.from, 1);
  assert.equal(t.to, 3.5);
  assert.deepEqual(t.threads.map(x => [x.tid, x.name, x.runs.length]), [['9', 'main', 2], ['10', 'a&b', 1]]);
  assert.deepEqual(t.threads[0].runs[1], { from: 2, to: 3.5, state: 'sleep', fn: '' });
  assert.equal(t.threads[1].runs[0].fn, 'operator< (a)');
});

test('one colour per thread state, the flame graph\'s and the timeline\'s', () => {
  assert.deepEqual(Object.keys(threadStateColours), ['running', 'lock', 'io', 'sleep', 'other']);
  assert.equal(new Set(Object.values(threadStateColours)).size, 5);
  assert.equal(threadStateColour('sleep'), threadStateColours.sleep);
  assert.equal(threadStateColour('unheard-of'), '#bbbbbb');
  // No other module of the page has a colour table of its own.
  for (const file of ['charts/flame.js', 'charts/timeline.js']) {
    const text = readFileSync(new URL(file, web), 'utf8');
    assert.match(text, /from '\.\/thread_states\.js'/);
    assert.doesNotMatch(text, /sleep: '#/);
  }
});

test('the chart libraries: index.html loads what web/package.json lists, npm installed each', () => {
  const listed = JSON.parse(readFileSync(new URL('package.json', web), 'utf8')).perfdm.page;
  assert.ok(listed.some(f => f.startsWith('chart.js/')) && listed.some(f => f.startsWith('d3-flame-graph/')));
  const html = readFileSync(new URL('index.html', web), 'utf8');
  const loaded = [...html.matchAll(/<script src="\/lib\/([^"]+)" defer><\/script>/g)].map(m => m[1]);
  assert.deepEqual(loaded, listed.map(f => f.replace('/dist/', '/')));
  for (const f of listed) assert.ok(existsSync(new URL(`node_modules/${f}`, web)), `web/node_modules/${f}: run scripts/setup.sh`);
  assert.doesNotMatch(html, /<script[^>]+src="(?!\/lib\/|\/app\.js)/);
});

test('the search form decides on the evidence by default, as perfdm search does', () => {
  const html = readFileSync(new URL('index.html', web), 'utf8');
  const input = (id) => html.match(new RegExp(`<input id="${id}"[^>]*>`))?.[0];
  assert.ok(input('search-sufficient-time'), 'the form has a sufficient time');
  assert.doesNotMatch(input('search-sufficient-time'), / value=/);
  assert.doesNotMatch(input('search-confidence'), / value=/);
  assert.match(input('search-confidence'), /placeholder="0\.99"/);
});

test('the files panel: file.* totals from GET /metrics, the top files by I/O time, file resources', () => {
  const text = [
    '# TYPE perfdm_value_total counter',
    'perfdm_value_total{metric="file.write_bytes",focus="/File/tmp/a.bin",phase="global"} 2621439.999999999',
    'perfdm_value_total{metric="file.write_time",focus="/File/tmp/a.bin",phase="global"} 0.002',
    'perfdm_value_total{metric="file.read_bytes",focus="/File/tmp/q\\"x.txt",phase="global"} 700',
    'perfdm_value_total{metric="file.read_time",focus="/File/tmp/q\\"x.txt",phase="global"} 0.5',
    'perfdm_value_total{metric="file.write_bytes",focus="/File/tmp/a.bin",phase="1"} 5',
    'perfdm_value_total{metric="cpu",focus="/File/tmp/a.bin",phase="global"} 9',
  ].join('\n');
  const totals = fileTotals(text);
  assert.deepEqual(totals.get('/File/tmp/a.bin'), { 'file.write_bytes': 2621440, 'file.write_time': 0.002 });
  assert.deepEqual(totals.get('/File/tmp/q"x.txt'), { 'file.read_bytes': 700, 'file.read_time': 0.5 });
  const rows = topFiles(totals, ['/File/tmp/a.bin', '/File/tmp/q"x.txt', '/File/tmp/none']);
  assert.deepEqual(rows.map(r => r.file), ['/tmp/q"x.txt', '/tmp/a.bin']);  // by I/O time
  assert.equal(rows[1].written, 2621440);
  assert.equal(rows[1].read, 0);
  assert.equal(isFileResource('/File/tmp/a.bin'), true);
  assert.equal(isFileResource('/File/socket:[4711]'), false);
  assert.equal(isFileResource('/Code/a'), false);
  assert.equal(bytesText(700), '700 B');
  assert.equal(bytesText(2621440), '2.5 MiB');
});
