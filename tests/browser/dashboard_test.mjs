// The dashboard in a real browser: Debian's headless chromium driven by puppeteer-core.
// Starts the bundled workload and an engine watching it, opens the page, attaches the
// workload and enables metrics from the page, waits for the charts to hold completed buckets,
// starts a phase, opens the archived histogram of the old one, checks the CPU profile and the
// threads, and saves screenshots. Fails on any console error of the page.
// Usage: node dashboard_test.mjs --perfdm BIN --workload BIN --out DIR
import puppeteer from 'puppeteer-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Processes, argument, openDashboard, press, within } from './engine.mjs';

const perfdm = argument('--perfdm');
const workloadBinary = argument('--workload');
const out = argument('--out');
const chromium = argument('--chromium', '/usr/bin/chromium');
mkdirSync(out, { recursive: true });

const processes = new Processes();
let browser;
const consoleErrors = [];

async function main() {
  const pid = await processes.workload(workloadBinary, 60);
  // A small base width: buckets complete every 5 ms, and the global histogram folds after 5 s.
  const url = await processes.engine(perfdm, ['--base-width', '0.005', '--pid', pid]);
  const opened = await openDashboard(puppeteer, chromium, url, consoleErrors, 30000);
  browser = opened.browser;
  const page = opened.page;
  // The status line: the engine's clock goes on; the page itself is one of the open connections.
  const clock = Number(await page.$eval('#st-clock', (e) => e.textContent));
  await page.waitForFunction((t) => Number(document.getElementById('st-clock').textContent) > t, {}, clock);
  await page.waitForFunction(() => Number(document.getElementById('st-clients').textContent) >= 1);

  // The first screen: the watched process's CPU and wait histograms, with no form filled in.
  await page.waitForFunction(() => ['cpu', 'sync_wait', 'io_wait'].every(m =>
    [...document.querySelectorAll('.histogram[data-first="true"] .histogram-head')].some(h => /^MI \d+ (\S+) @ \/Machine\/[^/]+\/perfdm_workload\{\d+\} /.exec(h.textContent)?.[1] === m)));
  // … and they fill: the workload runs.
  await page.waitForFunction(() => [...document.querySelectorAll('.histogram[data-first="true"]')].some(h => Number(h.dataset.filled) >= 5));
  // The histogram key ('MI:PHASE') of what the form enabled: the page's own come first.
  const keyOf = (metric, phase) => page.waitForFunction((m, p) => {
    const r = [...document.querySelectorAll('#mi-table tbody tr')].find(r => r.cells[1].textContent === m && r.cells[3].textContent === p);
    return r && `${r.cells[0].textContent}:${p}`;
  }, {}, metric, phase).then(h => h.jsonValue());

  // Attach the workload's frames from the page (it is watched already: --pid).
  await page.type('#process-pid', pid);
  await press(page, '#process-form button[data-command="ATTACH"]');
  await page.waitForFunction(() => [...document.querySelectorAll('#enable-metric option')].some(o => o.value === 'work.requests'));

  // Enable work.requests for the whole run, and work.latency_us for the current phase with
  // persistent data (so that a new phase archives it).
  await page.select('#enable-metric', 'work.requests');
  await press(page, '#enable-button');
  const requests = await keyOf('work.requests', 'GLOBAL');
  await page.waitForSelector(`.histogram[data-key="${requests}"]`);
  await page.select('#enable-metric', 'work.latency_us');
  await page.select('#enable-phase', 'CURRENT');
  await press(page, '#flag-data');
  await press(page, '#enable-button');
  const latency = await keyOf('work.latency_us', 'CURRENT');
  await page.waitForSelector(`.histogram[data-key="${latency}"]`);
  await page.waitForFunction((k) => Number(document.querySelector(`.histogram[data-key="${k}"]`).dataset.filled) >= 10, {}, requests);
  await page.waitForFunction((k) => Number(document.querySelector(`.histogram[data-key="${k}"]`).dataset.filled) >= 5, {}, latency);
  // The profile table is read while in sight.
  await page.$eval('#profile', (e) => e.scrollIntoView());
  await page.waitForFunction(() => document.querySelectorAll('#profile-table tbody tr').length > 0);
  await page.waitForFunction(() => document.querySelectorAll('#thread-table tbody tr').length >= 2);
  await page.screenshot({ path: join(out, 'dashboard-live.png'), fullPage: true });

  // A new phase from the page; then the archived histogram of phase 0.
  await page.type('#phase-name', 'watching');
  await press(page, '#phase-button');
  await page.waitForFunction(() => [...document.querySelectorAll('#phase-table tbody tr')].some(r => r.cells[1].textContent === 'watching'));
  await page.waitForSelector('#phase-table tr[data-phase="0"] button');
  await press(page, '#phase-table tr[data-phase="0"] button');
  await page.waitForSelector('.histogram[data-archived="true"]');
  await page.waitForFunction(() => Number(document.querySelector('.histogram[data-archived="true"]').dataset.filled) >= 5);
  // The live charts go on after the phase change: more buckets, or fewer and wider after a fold
  // (near 1000 buckets, "more" may last less than a second before the fold).
  const before = await page.$eval(`.histogram[data-key="${requests}"]`, (e) => `${e.dataset.completed} ${e.dataset.width}`);
  await page.waitForFunction((n, k) => { const e = document.querySelector(`.histogram[data-key="${k}"]`); return `${e.dataset.completed} ${e.dataset.width}` !== n; }, {}, before, requests);
  // The global histogram folds (1000 buckets of 5 ms): the chart is re-binned to 10 ms.
  await page.waitForFunction((k) => Number(document.querySelector(`.histogram[data-key="${k}"]`).dataset.width) >= 0.01, {}, requests);
  const consultant = await page.$eval('#shg-state', (e) => e.textContent);
  if (!consultant.startsWith('no search') && !/nodes/.test(consultant)) throw new Error(`the consultant panel says '${consultant}'`);
  await page.screenshot({ path: join(out, 'dashboard-archived.png'), fullPage: true });

  // A chart drawn bit by bit (new buckets redraw only from the first changed bar) has the same
  // pixels as the same histogram drawn whole (but for anti-aliased edges: the rasteriser may
  // round a path of a few bars and one of a hundred a level apart).
  const drawing = await page.evaluate(async () => {
    const { Histogram } = await import('/charts/histogram.js');
    const box = document.createElement('div');
    box.style.width = '440px';
    document.body.append(box);
    const phases = [{ start: 1, name: 'one' }, { start: 6.5, name: 'two' }];
    const value = (i) => (i % 7 === 3 ? NaN : 100 + 60 * Math.sin(i / 15) + (i % 5));
    const live = new Histogram(box, 'live', phases);
    const whole = new Histogram(box, 'whole', phases);
    for (const h of [live, whole]) Object.assign(h, { start: 0, width: 0.02 });
    for (let i = 0; i < 301; i++) live.set(i, value(i));
    live.render();
    live.render();  // laid out: bars grouped by the chart's width
    const updates = live.updates, redraws = live.redraws;
    for (let i = 301; i < 400; i++) { live.set(i, value(i)); if (i % 9 === 0) live.render(); }
    live.render();
    for (let i = 0; i < 400; i++) whole.set(i, value(i));
    whole.render();
    whole.render();
    const pixels = (h) => h.chart.ctx.getImageData(0, 0, h.chart.canvas.width, h.chart.canvas.height).data;
    const [a, b] = [pixels(live), pixels(whole)];
    // Compared as stored (premultiplied by alpha): a faint edge's colour read back unpremultiplied
    // magnifies a rounding of one into ten.
    let differ = 0;
    for (let i = 0; i < a.length; i += 4)
      for (let c = 0; c < 4; c++) {
        const [x, y] = c === 3 ? [a[i + 3], b[i + 3]] : [a[i + c] * a[i + 3] / 255, b[i + c] * b[i + 3] / 255];
        if (Math.abs(x - y) > 3) { differ++; break; }
      }
    let bars = 0;
    for (let i = 0; i < a.length; i += 4) if (a[i] === 0x2e && a[i + 1] === 0x86 && a[i + 2] === 0xc1) bars++;
    const result = { differ, bars, pixels: a.length / 4, updates: live.updates - updates, redraws: live.redraws - redraws };
    live.remove(); whole.remove(); box.remove();
    return result;
  });
  if (drawing.differ || drawing.bars < 1000 || drawing.updates || drawing.redraws < 5)
    throw new Error(`a chart drawn bit by bit against drawn whole: ${JSON.stringify(drawing)}`);

  // An error reply is shown as the protocol reports it.
  await page.$eval('#process-pid', (e) => { e.value = ''; });
  await page.type('#process-pid', '999999999');
  await press(page, '#process-form button[data-command="ATTACH"]');
  await page.waitForFunction(() => /UNKNOWN_TARGET/.test(document.getElementById('errors').textContent));
  await page.screenshot({ path: join(out, 'dashboard-error.png') });
  if (consoleErrors.length) throw new Error(`console errors: ${consoleErrors.join('; ')}`);
  console.log(`dashboard: ok, screenshots in ${out}`);
}

let status = 0;
try {
  await within(90000, 'the dashboard test', main());
} catch (e) {
  console.error(`dashboard: FAILED: ${e.message}`);
  if (processes.engineErrors) console.error(`engine stderr: ${processes.engineErrors}`);
  status = 1;
} finally {
  if (browser) await browser.close().catch(() => {});
  await processes.stop();
}
process.exit(status);
