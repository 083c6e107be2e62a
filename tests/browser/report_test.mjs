// perfdm report's pages in a real browser: Debian's headless chromium (puppeteer-core) opens
// each report as a file:// page with every network request refused, and checks that the page
// drew (its insights, every chart and heatmap), that the first insight is on the first screen
// at 1366x768 and 1920x1080, that the insights match the log's (--json), and that the page
// logged no error. Screenshots go to --out.
// Usage: node report_test.mjs --perfdm BIN --logs DIR --out DIR
import puppeteer from 'puppeteer-core';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, basename } from 'node:path';
import { argument, describeWaits } from './engine.mjs';

const perfdm = argument('--perfdm');
const logsDir = argument('--logs');
const out = argument('--out');
const chromium = argument('--chromium', '/usr/bin/chromium');
mkdirSync(out, { recursive: true });

const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

// Writes the report of `logs` (one or more) to out/NAME.html and its data to out/NAME.json.
function report(name, logs) {
  const html = join(out, `${name}.html`);
  const json = join(out, `${name}.json`);
  const answer = execFileSync(perfdm, ['report', ...logs, '-o', html, '--json', json], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { html, data: JSON.parse(readFileSync(json, 'utf8')), answer };
}

async function open(browser, file, width, height, errors) {
  const page = describeWaits(await browser.newPage());
  await page.setViewport({ width, height });
  await page.setRequestInterception(true);
  page.on('request', (r) => {
    if (r.url().startsWith('file://') || r.url().startsWith('data:')) r.continue();
    else { errors.push(`network request: ${r.url()}`); r.abort(); }
  });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.setDefaultTimeout(20000);
  await page.goto(`file://${file}`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

// What the page shows: the insights in order, the charts drawn, whether the first insight is
// in the first screen.
const pageFacts = (page) => page.evaluate(() => {
  const items = [...document.querySelectorAll('#insights li')];
  const first = items[0]?.getBoundingClientRect();
  const canvases = [...document.querySelectorAll('canvas')];
  const blank = canvases.filter((c) => {
    const ctx = c.getContext('2d');
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return false;
    return true;
  }).length;
  return {
    codes: items.map((li) => li.dataset.code),
    lines: items.map((li) => li.querySelector('.line').textContent),
    firstVisible: !!first && first.bottom <= window.innerHeight,
    title: document.getElementById('answer-title').textContent,
    noInsights: !document.getElementById('no-insights').hidden,
    canvases: canvases.length,
    drawn: canvases.filter((c) => c.dataset.drawn === 'true').length,
    blank,
    panels: [...document.querySelectorAll('#panels > section > h2')].map((h) => h.textContent),
    errors: document.querySelectorAll('#report-notes .error').length,
    partialNote: [...document.querySelectorAll('#report-notes .error')].some((e) => /Module data incomplete/.test(e.textContent)),
  };
});

async function main() {
  const logs = readdirSync(logsDir).filter((f) => f.endsWith('.darshan')).sort().map((f) => join(logsDir, f));
  check(logs.length >= 7, `expected the 7 sample logs in ${logsDir}, found ${logs.length}`);
  const browser = await puppeteer.launch({
    executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  try {
    const reports = logs.map((log) => ({ name: basename(log, '.darshan'), ...report(basename(log, '.darshan'), [log]) }));
    reports.push({ name: 'all-jobs', ...report('all-jobs', logs) });
    for (const r of reports) {
      const errors = [];
      check(statSync(r.html).size < 4 << 20, `${r.name}: the page is over 4 MiB`);
      for (const [w, h] of [[1366, 768], [1920, 1080]]) {
        const page = await open(browser, r.html, w, h, errors);
        const f = await pageFacts(page);
        const problems = r.data.insights.filter((i) => i.level === 'high' || i.level === 'warn').map((i) => i.code);
        check(JSON.stringify(f.codes) === JSON.stringify(problems), `${r.name}: page shows ${f.codes} for ${problems}`);
        check(f.codes.length > 0 ? f.firstVisible : f.noInsights, `${r.name} ${w}x${h}: the answer is not on the first screen`);
        check(f.canvases > 0 && f.drawn === f.canvases, `${r.name}: ${f.drawn} of ${f.canvases} charts drawn`);
        check(f.blank === 0, `${r.name}: ${f.blank} blank charts`);
        if (r.data.kind === 'job') {
          check(f.title.startsWith('What to fix in '), `${r.name}: title ${f.title}`);
          for (const p of ['Job', 'Log', 'I/O cost per process'])
            check(f.panels.includes(p), `${r.name}: no ${p} panel in ${f.panels}`);
          for (const m of r.data.modules.filter((m) => m.overview))
            check(f.panels.includes(m.name), `${r.name}: no ${m.name} panel`);
          if (r.data.heatmaps.length || r.data.dxt.length)
            check(f.panels.includes('Heat maps: bytes over time and ranks'), `${r.name}: no heat maps`);
          check(f.partialNote === r.data.modules.some((m) => m.partial), `${r.name}: the partial warning is ${f.partialNote}`);
          // The command's answer is the page's first lines.
          const first = r.answer.split('\n').filter(Boolean)[0] || '';
          check(f.codes.length === 0 || first.startsWith(f.codes[0]), `${r.name}: perfdm printed ${first}`);
        } else {
          check(f.title === `What to fix across ${logs.length} jobs`, `${r.name}: title ${f.title}`);
          const rows = await page.$$eval('#jobs tbody tr', (t) => t.length);
          check(rows === logs.length, `${r.name}: ${rows} job rows`);
        }
        await page.screenshot({ path: join(out, `${r.name}-${w}x${h}.png`) });
        if (w === 1366) await page.screenshot({ path: join(out, `${r.name}-full.png`), fullPage: true });
        await page.close();
      }
      check(errors.length === 0, `${r.name}: ${errors.join('; ')}`);
    }
  } finally {
    await browser.close();
  }
  if (failures.length) {
    for (const f of failures) console.error(`FAIL ${f}`);
    process.exit(1);
  }
  console.log(`report.browser: ${logs.length} logs and one page of all of them checked in chromium`);
}

main().catch((e) => { console.error(e); process.exit(1); });
