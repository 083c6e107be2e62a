// The differential flame graph live, in Debian's headless chromium (puppeteer-core): an engine
// watches pc_phases (examples/pc/: CPU in crunch_numbers, then lock contention); the page starts
// a perfdm phase when the program says it switched, and compares phase 0 with the current phase
// (all states, each side's counts over its thread samples): crunch_numbers shrinks (drawn blue),
// the lock wait grows (drawn red). The timeline marks the phase start. Screenshot
// dashboard-flame-diff.png; fails on any console error of the page.
// Usage: node dashboard_diff_test.mjs --perfdm BIN --pc-phases BIN --out DIR
import puppeteer from 'puppeteer-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Processes, argument, openDashboard, press, within } from './engine.mjs';

const perfdm = argument('--perfdm');
const pcPhases = argument('--pc-phases');
const out = argument('--out');
const chromium = argument('--chromium', '/usr/bin/chromium');
mkdirSync(out, { recursive: true });

const processes = new Processes();
let browser;
const consoleErrors = [];

async function main() {
  const started = Date.now();
  const pid = await processes.pcWorkload(pcPhases, 40, 4);
  const url = await processes.engine(perfdm, ['--pid', pid]);
  const opened = await openDashboard(puppeteer, chromium, url, consoleErrors, 30000);
  browser = opened.browser;
  const page = opened.page;
  // A wait that fails says what it waited for and where (a 30 s wait here once timed out
  // without saying which).
  const failed = await page.waitForSelector('#no-such-panel', { timeout: 50 }).then(() => null, (e) => e.message);
  if (!failed || !failed.includes('#no-such-panel') || !/dashboard_diff_test\.mjs:\d+/.test(failed))
    throw new Error(`a failed wait says '${failed}'`);

  // Phase 1 is the program's CPU phase; at its switch the page starts the perfdm phase 'lock'.
  await processes.output(pid, /phase lock/, 15000);
  await page.type('#phase-name', 'lock');
  await press(page, '#phase-button');
  await page.waitForFunction(() => [...document.querySelectorAll('#diff-phase-b option')].some(o => o.value === '1'));
  await page.select('#flame-view', 'all');
  await press(page, '#diff-on');
  await page.select('#diff-phase-a', '0');
  await page.select('#diff-phase-b', 'CURRENT');
  // Enough of the lock phase: its lockers' samples.
  const deltas = () => page.$$eval('#flame-graph g.frame', (gs) => gs.map((g) => ({
    name: g.getAttribute('name'), delta: g.__data__.data.delta, before: g.__data__.data.before, after: g.__data__.data.after,
    fill: g.querySelector('rect').getAttribute('fill'), title: g.querySelector('title').textContent,
  })));
  await page.waitForFunction(() => document.getElementById('flame-graph').dataset.mode === 'diff'
    && [...document.querySelectorAll('#flame-graph g.frame')].some(g => g.getAttribute('name') === '[lock]' && g.__data__.data.after > 0.3));
  const frames = await deltas();
  const crunch = frames.filter(f => /(^|::)crunch_numbers \(/.test(f.name));
  const lock = frames.filter(f => f.name === '[lock]');
  if (!crunch.length || crunch.some(f => !(f.delta < 0) || !/^rgb\((\d+),\1,255\)$/.test(f.fill)))
    throw new Error(`crunch_numbers does not shrink: ${JSON.stringify(crunch)}`);
  if (!lock.length || lock.some(f => !(f.delta > 0) || !/^rgb\(255,(\d+),\1\)$/.test(f.fill)))
    throw new Error(`the lock wait does not grow: ${JSON.stringify(lock)}`);
  if (!/→/.test(crunch[0].title)) throw new Error(`a diff frame's title: ${crunch[0].title}`);
  const summary = await page.$eval('#flame-summary', (e) => e.textContent);
  if (!/phase 0 .*→ phase 1 .*share of its side's thread samples/.test(summary)) throw new Error(`the diff says '${summary}'`);
  // The timeline marks the phase start.
  await page.waitForSelector('#timeline g.timeline-phase[data-phase="1"]');
  await page.$eval('#flame', (e) => e.scrollIntoView());
  await page.screenshot({ path: join(out, 'dashboard-flame-diff.png') });
  if (consoleErrors.length) throw new Error(`console errors: ${consoleErrors.join('; ')}`);
  console.log(`dashboard diff: ok in ${((Date.now() - started) / 1000).toFixed(1)} s: crunch_numbers ${crunch.map(f => f.delta.toFixed(3))}, lock ${lock.map(f => f.delta.toFixed(3))}`);
}

let status = 0;
try {
  await within(60000, 'the dashboard diff test', main());
} catch (e) {
  console.error(`dashboard diff: FAILED: ${e.message}`);
  if (processes.engineErrors) console.error(`engine stderr: ${processes.engineErrors}`);
  status = 1;
} finally {
  if (browser) await browser.close().catch(() => {});
  await processes.stop();
}
process.exit(status);
