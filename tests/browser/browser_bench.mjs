// Browser CPU while 20 live histograms update (bench/RESULTS.md, issue 16): the dashboard in
// Debian's headless chromium, the engine watching and attached to the bundled workload, 20
// histograms enabled from the page; then the CPU time of every chromium process (from /proc)
// and the renderer's main-thread task time (page.metrics) over 10 s.
// Usage: node browser_bench.mjs --perfdm BIN --workload BIN [--histograms 20] [--seconds 10]
import puppeteer from 'puppeteer-core';
import { readFileSync, readdirSync } from 'node:fs';
import { Processes, argument, within } from './engine.mjs';

const perfdm = argument('--perfdm');
const workloadBinary = argument('--workload');
const histograms = Number(argument('--histograms', '20'));
const seconds = Number(argument('--seconds', '10'));
const ticks = 100;  // USER_HZ on Linux

function cpuSeconds(root) {
  const parent = new Map();
  const times = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
      times.set(Number(d), (Number(f[11]) + Number(f[12])) / ticks);
    } catch (_) { /* gone */ }
  }
  let total = 0;
  for (const [pid, t] of times) {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0)
      if (p === root) { total += t; break; }
  }
  return total;
}

const processes = new Processes();
let browser;
try {
  await within(120000, 'the browser bench', (async () => {
    const pid = await processes.workload(workloadBinary, 120);
    const url = await processes.engine(perfdm, ['--base-width', '0.02', '--pid', pid]);
    browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1300 });
    await page.goto(url + '/');
    await page.waitForSelector('body[data-ready="true"]');
    await page.type('#process-pid', pid);
    await page.click('#process-form button[data-command="ATTACH"]');
    await page.waitForFunction(() => [...document.querySelectorAll('#enable-metric option')].some(o => o.value === 'work.requests'));
    const metrics = await page.$$eval('#enable-metric option', os => os.map(o => o.value));
    const foci = ['/', await page.$eval('#resource-tree li[data-name^="/Process/perfdm_workload"]', e => e.dataset.name)];
    let enabled = 0;
    for (const focus of foci)
      for (const metric of metrics) {
        if (enabled === histograms) break;
        await page.select('#enable-metric', metric);
        await page.$eval('#enable-focus', (e, f) => { e.value = f; }, focus);
        await page.click('#enable-button');
        await page.waitForFunction((n) => document.querySelectorAll('.histogram').length === n, {}, ++enabled);
      }
    await new Promise(r => setTimeout(r, 3000));
    const root = browser.process().pid;
    const m0 = await page.metrics();
    const c0 = cpuSeconds(root);
    const t0 = Date.now();
    await new Promise(r => setTimeout(r, seconds * 1000));
    const m1 = await page.metrics();
    const c1 = cpuSeconds(root);
    const wall = (Date.now() - t0) / 1000;
    const buckets = await page.$$eval('.histogram', hs => hs.reduce((a, h) => a + Number(h.dataset.completed), 0));
    console.log(`histograms ${enabled}, wall ${wall.toFixed(1)} s: chromium CPU ${(100 * (c1 - c0) / wall).toFixed(1)} % of one core ` +
      `(all processes), renderer main thread ${(100 * (m1.TaskDuration - m0.TaskDuration) / wall).toFixed(1)} %, ` +
      `script ${(100 * (m1.ScriptDuration - m0.ScriptDuration) / wall).toFixed(1)} %; ${buckets} buckets on the page`);
  })());
} finally {
  if (browser) await browser.close().catch(() => {});
  await processes.stop();
}
