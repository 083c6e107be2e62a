// The flame graph, the thread timeline and the findings live, in Debian's headless chromium
// (puppeteer-core), on the pc workloads (examples/pc/): an engine watches pc_cpu, the page then
// watches pc_lock from its form.
// - pc_cpu, on-CPU: following the widest frame from `main` up ends at tokenize, the known hot
//   function; every frame's name is in the DOM; a click zooms and the zoom survives the live
//   updates; the search box highlights the matching frames;
// - pc_lock, off-CPU: the widest frame on top of the stacks is the lock wait ([lock]), above
//   update_shared_table; the timeline has one row per thread, the lockers waiting on the lock;
// - a search of pc_cpu from the panel: its findings are the first thing on the page, and
//   clicking one highlights its function's frames and its thread's row.
// Screenshots dashboard-flame-*.png; fails on any console error of the page.
// Usage: node dashboard_flame_test.mjs --perfdm BIN --pc-cpu BIN --pc-lock BIN --out DIR
import puppeteer from 'puppeteer-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Processes, argument, openDashboard, press, within } from './engine.mjs';

const perfdm = argument('--perfdm');
const pcCpu = argument('--pc-cpu');
const pcLock = argument('--pc-lock');
const out = argument('--out');
const chromium = argument('--chromium', '/usr/bin/chromium');
mkdirSync(out, { recursive: true });

const processes = new Processes();
let browser;
const consoleErrors = [];

// The drawn frames as the page has them: name, inclusive samples, parent's name, highlight.
function frames(page) {
  return page.$$eval('#flame-graph g.frame', (gs) => gs.map((g) => {
    const d = g.__data__;
    return {
      name: g.getAttribute('name'), title: g.querySelector('title')?.textContent || '', label: g.getAttribute('aria-label'),
      value: d.value, parent: d.parent ? d.parent.data.name : null, leaf: !d.children || d.children.every(c => !c.value),
      highlight: g.hasAttribute('data-highlight'), fill: g.querySelector('rect').getAttribute('fill'),
      width: Number(g.querySelector('rect').getAttribute('width')),
    };
  }));
}

// Whether frame `name` ('function (module)') is function `fn`, maybe in a namespace or class.
const isFn = (name, fn) => new RegExp(`(^|::)${fn} \\(`).test(name || '');

// From the widest frame of function `from`, the path of widest children to a leaf.
async function widestPath(page, from) {
  return page.$eval('#flame-graph svg', (svg, from) => {
    const all = [...svg.querySelectorAll('g.frame')].map(g => g.__data__).filter(d => from === 'all' ? d.data.name === 'all' : new RegExp(`(^|::)${from} \\(`).test(d.data.name));
    if (!all.length) return [];
    let d = all.sort((a, b) => b.value - a.value)[0];
    const path = [d.data.name];
    while (d.children && d.children.some(c => c.value > 0)) {
      d = d.children.reduce((a, b) => (b.value > a.value ? b : a));
      path.push(d.data.name);
    }
    return path;
  }, from);
}

async function main() {
  const started = Date.now();
  const cpuPid = await processes.pcWorkload(pcCpu, 60);
  const url = await processes.engine(perfdm, ['--pid', cpuPid]);
  const opened = await openDashboard(puppeteer, chromium, url, consoleErrors, 30000);
  browser = opened.browser;
  const page = opened.page;

  // pc_cpu on-CPU: the hot path from main is main → run → parse → tokenize.
  await page.waitForFunction(() => Number(document.getElementById('flame-graph').dataset.samples) >= 100);
  await page.waitForFunction(() => [...document.querySelectorAll('#flame-graph g.frame')].some(g => /(^|::)tokenize \(/.test(g.getAttribute('name'))));
  const hot = await widestPath(page, 'main');
  if (!isFn(hot[hot.length - 1], 'tokenize')) throw new Error(`widest path from main: ${hot.join(' → ')}`);
  let drawn = await frames(page);
  const main = drawn.filter(f => isFn(f.name, 'main')).sort((a, b) => b.value - a.value)[0];
  const tokenize = drawn.find(f => isFn(f.name, 'tokenize'));
  if (tokenize.value < 0.5 * main.value) throw new Error(`tokenize ${tokenize.value} of main's ${main.value} samples`);
  // Every frame's name is in the DOM: its <title> (with counts and share) and aria-label.
  for (const f of drawn)
    if (!f.title.startsWith(`${f.name}: `) || !/ samples, [\d.]+ % of the samples in scope$/.test(f.title) || f.label !== f.name)
      throw new Error(`frame '${f.name}' is not named in the DOM: title '${f.title}', aria-label '${f.label}'`);
  await page.screenshot({ path: join(out, 'dashboard-flame-cpu.png') });

  // Click parse: zoomed, and still zoomed after two live updates (the samples grow).
  await page.$$eval('#flame-graph g.frame', (gs) => gs.find(g => /(^|::)parse \(/.test(g.getAttribute('name')))
    .dispatchEvent(new MouseEvent('click', { bubbles: true })));
  await page.waitForFunction(() => /(;|::)parse \([^;]*$/.test(document.getElementById('flame-graph').dataset.zoom));
  const zoom = await page.$eval('#flame-graph', e => e.dataset.zoom);
  const samples = await page.$eval('#flame-graph', e => Number(e.dataset.samples));
  await page.waitForFunction((n) => Number(document.getElementById('flame-graph').dataset.samples) > n + 50, {}, samples);
  if (await page.$eval('#flame-graph', e => e.dataset.zoom) !== zoom) throw new Error('the zoom was lost on a live update');
  drawn = await frames(page);
  // Zoomed: parse spans the whole width, the other thread (housekeeper) is not drawn.
  const full = await page.$eval('#flame-graph svg', (e) => Number(e.getAttribute('width')));
  const parseWidth = drawn.find(f => isFn(f.name, 'parse')).width;
  if (parseWidth < 0.99 * full) throw new Error(`zoomed on parse, drawn ${parseWidth} of ${full} px`);
  if (drawn.some(f => isFn(f.name, 'idle_housekeeping'))) throw new Error('zoomed on parse, idle_housekeeping still drawn');
  // The search box highlights the matching frames (and only them).
  await page.type('#flame-search', 'tokeni');
  await page.waitForFunction(() => Number(document.getElementById('flame-graph').dataset.highlighted) > 0);
  drawn = await frames(page);
  for (const f of drawn) {
    const should = f.name.toLowerCase().includes('tokeni');
    if (f.highlight !== should || (should && f.fill !== '#e600e6')) throw new Error(`search: frame ${f.name} highlight ${f.highlight} fill ${f.fill}`);
  }
  await page.screenshot({ path: join(out, 'dashboard-flame-zoom-search.png') });
  await page.$eval('#flame-search', (e) => { e.value = ''; e.dispatchEvent(new Event('input')); });
  await press(page, '#flame-reset');

  // A search from the panel: the findings come first on the page.
  await page.select('#search-phase', 'GLOBAL');
  await page.$eval('#search-sufficient-time', (e) => { e.value = '1'; });
  await press(page, '#search-start');
  await page.waitForSelector('#findings .finding');
  await page.waitForFunction(() => [...document.querySelectorAll('#findings .finding')].some(b => b.dataset.function === 'tokenize'));
  const answerFirst = await page.evaluate(() => {
    const answer = document.getElementById('answer').getBoundingClientRect();
    const others = [...document.querySelectorAll('main > section')].map(s => s.getBoundingClientRect().top);
    return !document.getElementById('answer').hidden && others.every(t => t >= answer.bottom);
  });
  if (!answerFirst) throw new Error('the findings are not the first thing on the page');
  // Found and clicked in one step: the live search may redraw the list between two steps.
  const chosen = await page.evaluate(() => {
    const b = document.querySelector('#findings .finding[data-function="tokenize"]');
    b.click();
    return { fn: b.dataset.function, tid: b.dataset.tid, text: b.textContent };
  });
  // The finding's frames, and only they, are highlighted once the graph settles: live updates
  // keep redrawing it meanwhile, so each look is one snapshot of the drawn frames.
  const litNames = () => page.$$eval('#flame-graph g.frame[data-highlight]', gs => gs.map(g => g.getAttribute('name')));
  let lit = [];
  for (const until = Date.now() + 10000; Date.now() < until; await new Promise(r => setTimeout(r, 100))) {
    lit = await litNames();
    if (lit.length && lit.every(name => isFn(name, chosen.fn))) break;
  }
  if (!lit.length || lit.some(name => !isFn(name, chosen.fn))) throw new Error(`finding ${chosen.text}: highlighted ${lit.join(', ')}`);
  if (chosen.tid) await page.waitForSelector(`#timeline g.timeline-row.selected[data-tid="${chosen.tid}"]`);
  // The search history graph as a tree: refinements nested, false subtrees folded away.
  const folded = await page.$$eval('#shg-tree details', (ds) => ds.map(d => ({ open: d.open, state: d.querySelector(':scope > summary .shg-node').dataset.state })));
  if (folded.some(d => (d.state === 'false' && d.open) || ((d.state === 'true' || d.state === 'unknown') && !d.open))) throw new Error(`SHG folding: ${JSON.stringify(folded)}`);
  await page.screenshot({ path: join(out, 'dashboard-findings.png') });

  // pc_lock, watched from the page: off-CPU puts the lock wait on top.
  const lockPid = await processes.pcWorkload(pcLock, 60);
  await page.$eval('#process-pid', (e) => { e.value = ''; });
  await page.type('#process-pid', lockPid);
  await press(page, '#process-form button[data-command="WATCH"]');
  await page.waitForFunction((p) => [...document.querySelectorAll('#flame-pid option')].some(o => o.value === p), {}, lockPid);
  await page.select('#flame-pid', lockPid);
  await page.select('#flame-view', 'offcpu');
  await page.waitForFunction(() => document.getElementById('flame-graph').dataset.view === 'offcpu'
    && Number(document.getElementById('flame-graph').dataset.samples) >= 100);
  await page.waitForFunction(() => [...document.querySelectorAll('#flame-graph g.frame')].some(g => g.getAttribute('name') === '[lock]'));
  drawn = await frames(page);
  const tops = drawn.filter(f => f.leaf).sort((a, b) => b.value - a.value);
  if (tops[0]?.name !== '[lock]') throw new Error(`off-CPU of pc_lock: widest frames on top ${tops.slice(0, 3).map(f => `${f.name} ${f.value}`).join(', ')}`);
  const lockPath = await widestPath(page, 'all');
  if (!lockPath.some(n => isFn(n, 'update_shared_table'))) throw new Error(`the lock wait is not under update_shared_table: ${lockPath.join(' → ')}`);
  // The timeline: a row per thread (main and 4 lockers), lockers seen waiting on the lock.
  await page.waitForFunction(() => Number(document.getElementById('timeline').dataset.threads) >= 5);
  await page.waitForSelector('#timeline g.timeline-row rect[data-state="lock"]');
  await page.$eval('#flame', (e) => e.scrollIntoView());
  await page.screenshot({ path: join(out, 'dashboard-flame-lock-offcpu.png') });
  if (consoleErrors.length) throw new Error(`console errors: ${consoleErrors.join('; ')}`);
  console.log(`dashboard flame: ok in ${((Date.now() - started) / 1000).toFixed(1)} s (hot path ${hot.join(' → ')}), screenshots in ${out}`);
}

let status = 0;
try {
  await within(90000, 'the dashboard flame test', main());
} catch (e) {
  console.error(`dashboard flame: FAILED: ${e.message}`);
  if (processes.engineErrors) console.error(`engine stderr: ${processes.engineErrors}`);
  status = 1;
} finally {
  if (browser) await browser.close().catch(() => {});
  await processes.stop();
}
process.exit(status);
