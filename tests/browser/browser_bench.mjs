// Browser benchmarks of the dashboard (bench/RESULTS.md, issues 16 and 23), in Debian's headless
// chromium; CPU is that of every chromium process (from /proc) and the renderer's main-thread
// task time (page.metrics), over --seconds.
// --mode histograms (default): the engine watching and attached to the bundled workload, 20
//   live histograms enabled from the page (the first screen's own three count).
// --mode flame: the page's flame graph (web/charts/flame.js, the d3-flame-graph the page uses) drawing
//   a profile of --nodes frames (10,000) as a FLAMEGRAPH reply, a new one every second with
//   other counts: the profile is generated (no program of ours has 10,000 call paths), the
//   parsing, tree building and drawing are the page's.
// --mode first: time from opening the page to the first flame graph drawn, the engine watching
//   pc_cpu (--pc-cpu BIN) for 3 s; median of --runs.
// Usage: node browser_bench.mjs --perfdm BIN --workload BIN [--mode histograms|flame|first]
//        [--histograms 20] [--seconds 10] [--nodes 10000] [--pc-cpu BIN] [--runs 5]
import puppeteer from 'puppeteer-core';
import { readFileSync, readdirSync } from 'node:fs';
import { Processes, argument, within } from './engine.mjs';

const perfdm = argument('--perfdm');
const mode = argument('--mode', 'histograms');
const workloadBinary = argument('--workload', '');
const histograms = Number(argument('--histograms', '20'));
const seconds = Number(argument('--seconds', '10'));
const nodes = Number(argument('--nodes', '10000'));
const runs = Number(argument('--runs', '5'));
const ticks = 100;  // USER_HZ on Linux

// CPU seconds (utime + stime) of every process under `root` (chromium's own pid), in total, by
// process type (chromium's --type: renderer, gpu-process, utility; the browser has none) and
// by thread name (comm: CrRendererMain, Compositor, VizCompositorTh, …).
function cpuSeconds(root) {
  const parent = new Map();
  const times = new Map();
  const stat = (path) => {
    const text = readFileSync(path, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { name: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')), ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / ticks };
  };
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = stat(`/proc/${d}/stat`);
      parent.set(Number(d), s.ppid);
      times.set(Number(d), s.cpu);
    } catch (_) { /* gone */ }
  }
  const result = { total: 0, types: {}, threads: {} };
  for (const [pid, t] of times) {
    let under = false;
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === root) { under = true; break; }
    if (!under) continue;
    result.total += t;
    try {
      // Chromium rewrites its command line as one line (its process title).
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const sub = cmdline.match(/--utility-sub-type=(?:\w+\.mojom\.)?(\w+)/);
      const type = (cmdline.match(/--type=([\w-]+)/) || [, 'browser'])[1] + (sub ? `(${sub[1]})` : '');
      result.types[type] = (result.types[type] || 0) + t;
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const s = stat(`/proc/${pid}/task/${task}/stat`);
        const name = `${type}:${s.name.replace(/\d+$/, '')}`;
        result.threads[name] = (result.threads[name] || 0) + s.cpu;
      }
    } catch (_) { /* gone */ }
  }
  return result;
}

// `after` − `before` (cpuSeconds) as percentages of one core over `wall` seconds: the process
// types, and the threads that took 0.5 % or more.
function cpuDetail(before, after, wall) {
  const pct = (a, b) => 100 * ((a || 0) - (b || 0)) / wall;
  const types = Object.keys(after.types).map(k => [k, pct(after.types[k], before.types[k])]).sort((a, b) => b[1] - a[1]);
  const threads = Object.keys(after.threads).map(k => [k, pct(after.threads[k], before.threads[k])])
    .filter(([, v]) => v >= 0.5).sort((a, b) => b[1] - a[1]);
  const list = (xs) => xs.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ');
  return `by process: ${list(types)}; by thread: ${list(threads)}`;
}

const launch = () => puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });

// CPU of the browser and its renderer over `seconds`.
async function measure(browser, page) {
  const root = browser.process().pid;
  const m0 = await page.metrics();
  const c0 = cpuSeconds(root);
  const t0 = Date.now();
  await new Promise(r => setTimeout(r, seconds * 1000));
  const m1 = await page.metrics();
  const c1 = cpuSeconds(root);
  const wall = (Date.now() - t0) / 1000;
  return `wall ${wall.toFixed(1)} s: chromium CPU ${(100 * (c1.total - c0.total) / wall).toFixed(1)} % of one core ` +
    `(all processes), renderer main thread ${(100 * (m1.TaskDuration - m0.TaskDuration) / wall).toFixed(1)} %, ` +
    `script ${(100 * (m1.ScriptDuration - m0.ScriptDuration) / wall).toFixed(1)} %, ` +
    `layout ${(100 * (m1.LayoutDuration - m0.LayoutDuration) / wall).toFixed(1)} %, ` +
    `style ${(100 * (m1.RecalcStyleDuration - m0.RecalcStyleDuration) / wall).toFixed(1)} %; ` +
    `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n  ${cpuDetail(c0, c1, wall)}`;
}

async function histogramBench(processes) {
  const pid = await processes.workload(workloadBinary, 120);
  const url = await processes.engine(perfdm, ['--base-width', '0.02', '--pid', pid]);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1300 });
    await page.goto(url + '/');
    await page.waitForSelector('body[data-ready="true"]');
    await page.type('#process-pid', pid);
    await page.click('#process-form button[data-command="ATTACH"]');
    await page.waitForFunction(() => [...document.querySelectorAll('#enable-metric option')].some(o => o.value === 'work.requests'));
    await page.waitForFunction(() => document.querySelectorAll('.histogram[data-first="true"]').length === 3);
    const metrics = await page.$$eval('#enable-metric option', os => os.map(o => o.value));
    const foci = ['/', await page.$eval('#resource-tree li[data-name^="/Process/perfdm_workload"]', e => e.dataset.name)];
    let enabled = await page.$$eval('.histogram', hs => hs.length);
    for (const focus of foci)
      for (const metric of metrics) {
        if (enabled === histograms) break;
        await page.select('#enable-metric', metric);
        await page.$eval('#enable-focus', (e, f) => { e.value = f; }, focus);
        await page.click('#enable-button');
        await page.waitForFunction((n) => document.querySelectorAll('.histogram').length === n, {}, ++enabled);
      }
    await page.$eval('#charts-panel', (e) => e.scrollIntoView());
    await new Promise(r => setTimeout(r, 3000));
    const sum = (key) => page.$$eval('.histogram', (hs, k) => hs.reduce((a, h) => a + Number(h.dataset[k] || 0), 0), key);
    const [updates, redraws] = [await sum('updates'), await sum('redraws')];
    const result = await measure(browser, page);
    console.log(`histograms ${enabled}, ${result}; ${await sum('completed')} buckets on the page; while measured ` +
      `${await sum('updates') - updates} Chart.js updates (axes moved), ${await sum('redraws') - redraws} redraws of the bars alone`);
  } finally {
    await browser.close().catch(() => {});
  }
}

async function flameBench(processes) {
  const url = await processes.engine(perfdm);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1300 });
    await page.goto(url + '/');
    await page.waitForSelector('body[data-ready="true"]');
    // A profile of `nodes` frames: a random tree (fixed seed), 8 functions a level, as deep as
    // it takes; each second every path's count changes.
    const drawn = await page.evaluate(async (nodes) => {
      const { FlameGraph, profileTree, parseFlameGraph } = await import('/charts/flame.js');
      let seed = 7;
      const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const paths = [];
      const grow = (prefix, budget) => {
        if (budget <= 1) { paths.push(prefix); return 1; }
        const k = 1 + Math.floor(random() * 8);
        let used = 1;
        for (let i = 0; i < k && used < budget; i++) used += grow(prefix.concat(`f${prefix.length}_${i}_${Math.floor(random() * 1000)} (app)`), Math.floor((budget - 1) / k));
        return used;
      };
      let made = 0;
      for (let r = 0; made < nodes; r++) made += grow([`root${r} (app)`], nodes - made);
      const graph = new FlameGraph(document.getElementById('flame-graph'), document.getElementById('flame-details'));
      const xml = () => `<DYPER_REPLY ID='1'><FLAMEGRAPH PID='1' VIEW='cpu' PHASE='0' SAMPLES='0' TOTAL='0'>${paths.map(p => `<PATH COUNT='${1 + Math.floor(random() * 100)}' STATE='running'>${p.join(';')}</PATH>`).join('')}</FLAMEGRAPH></DYPER_REPLY>`;
      const replies = Array.from({ length: 4 }, xml);  // built ahead: the engine's work, not the page's
      let n = 0;
      const tick = () => {
        const tree = profileTree(parseFlameGraph(replies[n++ % replies.length]), false);
        graph.show(tree, tree.value);
      };
      tick();
      setInterval(tick, 1000);
      let count = 0;
      const walk = (t) => { count++; t.children.forEach(walk); };
      walk(profileTree(parseFlameGraph(replies[0]), false));
      return { nodes: count - 1, paths: paths.length, frames: document.querySelectorAll('#flame-graph g.frame').length };
    }, nodes);
    await new Promise(r => setTimeout(r, 3000));
    const result = await measure(browser, page);
    const frames = await page.$$eval('#flame-graph g.frame', gs => gs.length);
    const { updates, moved, skipped } = await page.$eval('#flame-graph', e => ({ ...e.dataset }));
    console.log(`flame graph of ${drawn.nodes} nodes (${drawn.paths} paths), ${frames} frames drawn (≥ 2 px), new counts every second ` +
      `(${updates ?? '?'} drawn by the library, ${moved ?? '?'} moved in place, ${skipped ?? '?'} alike and not drawn), ${result}`);
  } finally {
    await browser.close().catch(() => {});
  }
}

async function firstBench(processes) {
  const pid = await processes.pcWorkload(argument('--pc-cpu'), 120);
  const url = await processes.engine(perfdm, ['--pid', pid]);
  await new Promise(r => setTimeout(r, 3000));
  const browser = await launch();
  const times = [];
  try {
    for (let i = 0; i < runs; i++) {
      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 1300 });
      const t0 = Date.now();
      await page.goto(url + '/');
      await page.waitForFunction(() => document.querySelectorAll('#flame-graph g.frame').length > 1, { polling: 'raf', timeout: 30000 });
      times.push(Date.now() - t0);
      await page.close();
    }
  } finally {
    await browser.close().catch(() => {});
  }
  times.sort((a, b) => a - b);
  console.log(`time from opening the page to the first flame graph: median ${times[Math.floor(times.length / 2)]} ms (${times.join(', ')} ms over ${runs} loads)`);
}

const processes = new Processes();
try {
  await within(180000, 'the browser bench', mode === 'flame' ? flameBench(processes)
    : mode === 'first' ? firstBench(processes) : histogramBench(processes));
} finally {
  await processes.stop();
}
