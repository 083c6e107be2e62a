// The dashboard's files panel live, in Debian's headless chromium (puppeteer-core): Debian's
// python3, with perfdm's I/O library preloaded, writes notes.txt (700 bytes) and then
// paced.bin (40 × 64 KiB, 0.1 s apart); an engine attached to it (--pid) serves the page. The
// panel lists both files with their exact bytes as the library counted them (paced.bin's
// growing while it is written), and the heatmap has write cells for the process, none read.
// Screenshot dashboard-files.png; fails on any console error of the page.
// Usage: node dashboard_files_test.mjs --perfdm BIN --out DIR
import puppeteer from 'puppeteer-core';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Processes, argument, openDashboard, within } from './engine.mjs';

const perfdm = argument('--perfdm');
const out = argument('--out');
const chromium = argument('--chromium', '/usr/bin/chromium');
mkdirSync(out, { recursive: true });

const processes = new Processes();
let browser;
let page;
let jobDir;
const consoleErrors = [];

const writer = `
import os, sys, time
d = sys.argv[1]
with open(os.path.join(d, 'notes.txt'), 'w') as f:
    f.write('perfdm\\n' * 100)
time.sleep(1.5)
fd = os.open(os.path.join(d, 'paced.bin'), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
for i in range(40):
    os.write(fd, b'x' * 65536)
    time.sleep(0.1)
os.close(fd)
time.sleep(120)
`;

// The files panel's rows: file, bytes read and written.
function rows(page) {
  return page.$$eval('#files-table tbody tr', (trs) => trs.map(tr => ({
    file: tr.dataset.file, read: Number(tr.dataset.read), written: Number(tr.dataset.written),
  })));
}

async function main() {
  const started = Date.now();
  const library = spawnSync(perfdm, ['io', '--library'], { encoding: 'utf8' }).stdout.trim();
  if (!library) throw new Error('perfdm io --library names no library');
  // A job directory of the test's, as perfdm search makes one: the process writes no log.
  jobDir = mkdtempSync('/dev/shm/perfdm-io.');
  const python = spawn('/usr/bin/python3', ['-c', writer, processes.dir], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, LD_PRELOAD: library, PERFDM_IO_JOB: jobDir },
  });
  processes.children.push(python);
  const url = await processes.engine(perfdm, ['--pid', String(python.pid), '--base-width', '0.1']);
  ({ browser, page } = await openDashboard(puppeteer, chromium, url, consoleErrors, 30000));
  await page.$eval('#files', (e) => e.scrollIntoView());

  const notes = join(processes.dir, 'notes.txt');
  const paced = join(processes.dir, 'paced.bin');
  await page.waitForFunction((f) => [...document.querySelectorAll('#files-table tbody tr')]
    .some(tr => tr.dataset.file === f && Number(tr.dataset.written) === 700), {}, notes);
  // While python writes: paced.bin is listed with part of its bytes.
  await page.waitForFunction((f) => [...document.querySelectorAll('#files-table tbody tr')]
    .some(tr => tr.dataset.file === f && Number(tr.dataset.written) > 0), {}, paced);
  const growing = (await rows(page)).find(r => r.file === paced);
  await page.waitForFunction((f) => [...document.querySelectorAll('#files-table tbody tr')]
    .some(tr => tr.dataset.file === f && Number(tr.dataset.written) === 40 * 65536), {}, paced);
  const all = await rows(page);
  const last = all.find(r => r.file === paced);
  if (last.read !== 0) throw new Error(`paced.bin read ${last.read} bytes, python read none`);
  if (all.some(r => r.file.startsWith('/usr/'))) throw new Error(`excluded files listed: ${JSON.stringify(all)}`);

  // The heatmap: write cells for the process, and its read lane empty.
  await page.waitForFunction(() => document.querySelectorAll('#files-heatmap rect').length > 0);
  const cells = await page.$$eval('#files-heatmap rect title', (ts) => ts.map(t => t.textContent));
  if (!cells.some(c => new RegExp(`${python.pid} write: `).test(c))) throw new Error(`no write cell for python: ${cells.slice(0, 5)}`);
  if (cells.some(c => / read: /.test(c))) throw new Error(`read cells for a program that read nothing: ${cells.filter(c => / read: /.test(c)).slice(0, 3)}`);
  await (await page.$('#files')).screenshot({ path: join(out, 'dashboard-files.png') });
  if (consoleErrors.length) throw new Error(`console errors: ${consoleErrors.join('; ')}`);
  console.log(`dashboard files: ok, paced.bin seen at ${growing.written} then ${last.written} bytes, `
    + `${cells.length} heatmap cells, in ${((Date.now() - started) / 1000).toFixed(1)} s, screenshot in ${out}`);
}

let status = 0;
try {
  await within(60000, 'the dashboard files test', main());
} catch (e) {
  console.error(`dashboard files: FAILED: ${e.message}`);
  if (page) {
    const seen = await page.evaluate(() => ({
      summary: document.getElementById('files-summary').textContent,
      errors: document.getElementById('errors')?.textContent || '',
    })).catch(() => ({}));
    console.error(`the panel: ${JSON.stringify(seen)}, rows ${JSON.stringify(await rows(page).catch(() => []))}`);
    if (consoleErrors.length) console.error(`console errors: ${consoleErrors.join('; ')}`);
  }
  if (processes.engineErrors) console.error(`engine stderr: ${processes.engineErrors}`);
  status = 1;
} finally {
  if (browser) await browser.close().catch(() => {});
  await processes.stop();
  if (jobDir) rmSync(jobDir, { recursive: true, force: true });
}
process.exit(status);
