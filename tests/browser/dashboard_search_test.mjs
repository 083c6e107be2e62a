// The Performance Consultant panel live, in Debian's headless chromium (puppeteer-core): an
// engine watches pc_cpu (examples/pc/, CPU-bound in main → run → parse → tokenize), the page
// starts a global search from the panel with its defaults (on the evidence), and the search
// history graph grows on the page from SHGNODE events: nodes coloured by state, CPUbound true
// at the top focus, refined below it into a true node at a function of pc_cpu. Saves
// dashboard-search.png; fails on any console error of the page.
// Usage: node dashboard_search_test.mjs --perfdm BIN --pc-cpu BIN --out DIR
import puppeteer from 'puppeteer-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Processes, argument, openDashboard, press, within } from './engine.mjs';

const perfdm = argument('--perfdm');
const pcCpu = argument('--pc-cpu');
const out = argument('--out');
const chromium = argument('--chromium', '/usr/bin/chromium');
mkdirSync(out, { recursive: true });

const processes = new Processes();
let browser;
const consoleErrors = [];

async function main() {
  const started = Date.now();
  const pid = await processes.pcWorkload(pcCpu, 40);
  const url = await processes.engine(perfdm, ['--pid', pid]);
  const opened = await openDashboard(puppeteer, chromium, url, consoleErrors, 30000);
  browser = opened.browser;
  const page = opened.page;
  // The search needs pc_cpu's /Code functions: wait until the resource tree has them.
  await page.waitForFunction(() => /tokenize/.test(document.body.textContent));

  // Start a global search from the panel with its defaults: as `perfdm search`, no tunable is
  // sent and nodes conclude on the evidence (the requests seen on the WebSocket).
  const sent = [];
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  cdp.on('Network.webSocketFrameSent', (e) => sent.push(e.response.payloadData));
  await page.select('#search-phase', 'GLOBAL');
  await press(page, '#search-start');
  await page.waitForFunction(() => /^search 0 \(GLOBAL\): running/.test(document.getElementById('search-state').textContent));
  const start = sent.filter((m) => /COMMAND='SEARCH'/.test(m));
  if (start.length !== 1 || !/<SEARCH PHASE='GLOBAL' ACTION='START'\/>/.test(start[0]))
    throw new Error(`the page's SEARCH requests: ${JSON.stringify(start)}`);

  // CPUbound concludes true at the top focus, then a refinement of it concludes true at a
  // function of pc_cpu (tokenize and its callers are all CPU-bound).
  await page.waitForSelector('.shg-node[data-state="true"][data-hypothesis="CPUbound"]');
  await page.waitForFunction(() => [...document.querySelectorAll('#shg-tree ul .shg-node[data-state="true"][data-hypothesis="CPUbound"]')]
    .some((n) => /<\/Code\/pc_cpu\/\w+,/.test(n.textContent)));

  // Coloured by state: every node's class is its STATE, and true is drawn red, false green.
  // Read in one evaluation, with the panel's count: the tree is drawn again when nodes change
  // (a node taken from an earlier drawing has no computed style, a count a later one's).
  const { nodes, summary } = await page.evaluate(() => ({
    nodes: [...document.querySelectorAll('#shg-tree .shg-node')].map((n) => ({
      state: n.dataset.state, cls: n.className, colour: getComputedStyle(n).backgroundColor, text: n.textContent,
    })),
    summary: document.getElementById('shg-state').textContent,
  }));
  for (const n of nodes) {
    if (!n.cls.includes(`shg-${n.state}`)) throw new Error(`node '${n.text}' is not coloured by its state`);
    if (n.state === 'true' && n.colour !== 'rgb(245, 183, 177)') throw new Error(`true node drawn ${n.colour}`);
    if (n.state === 'false' && n.colour !== 'rgb(213, 245, 227)') throw new Error(`false node drawn ${n.colour}`);
  }
  const top = nodes.filter((n) => /^CPUbound @ <\/Code, \/Machine, \/SyncObject>/.test(n.text));
  if (top.length !== 1 || top[0].state !== 'true') throw new Error(`top CPUbound node: ${JSON.stringify(top)}`);
  if (nodes.some((n) => n.state === 'true' && /idle_housekeeping/.test(n.text)))
    throw new Error('idle_housekeeping concluded true');
  if (!new RegExp(`^${nodes.length} nodes: [1-9]\\d* true`).test(summary)) throw new Error(`the panel says '${summary}' for ${nodes.length} nodes`);
  await page.$eval('#consultant', (e) => e.scrollIntoView());
  await page.screenshot({ path: join(out, 'dashboard-search.png'), fullPage: true });

  // A second global search while this one runs is refused, and shown as the protocol says.
  await press(page, '#search-start');
  await page.waitForFunction(() => /NOT_ALLOWED/.test(document.getElementById('errors').textContent));
  // Stop: the search ends, its nodes stay.
  await press(page, '#search-form button[data-action="STOP"]');
  await page.waitForFunction(() => /^search 0 \(GLOBAL\): ended/.test(document.getElementById('search-state').textContent));
  const after = await page.$$eval('#shg-tree .shg-node[data-state="true"]', (l) => l.length);
  if (!after) throw new Error('the true nodes are gone after STOP');
  if (consoleErrors.length) throw new Error(`console errors: ${consoleErrors.join('; ')}`);
  console.log(`dashboard search: ok, ${nodes.length} nodes (${summary}) in ${((Date.now() - started) / 1000).toFixed(1)} s, screenshot in ${out}`);
}

let status = 0;
try {
  await within(60000, 'the dashboard search test', main());
} catch (e) {
  console.error(`dashboard search: FAILED: ${e.message}`);
  if (processes.engineErrors) console.error(`engine stderr: ${processes.engineErrors}`);
  status = 1;
} finally {
  if (browser) await browser.close().catch(() => {});
  await processes.stop();
}
process.exit(status);
