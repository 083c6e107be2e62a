// For the dashboard's live tests: the bundled workload and a `perfdm engine --http` watching
// it, both real child processes, stopped (SIGTERM, then SIGKILL) when the test ends.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function argument(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (fallback !== undefined) return fallback;
  throw new Error(`missing ${name}`);
}

// Rejects after `ms` with `what`: every wait of a live test is bounded.
export function within(ms, what, promise) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms); }),
  ]);
}

// A wait of `page` that fails says what it waited for and which line of the test asked:
// puppeteer's own message is only "Waiting failed: 30000ms exceeded".
export function describeWaits(page) {
  for (const name of ['waitForFunction', 'waitForSelector']) {
    const wait = page[name].bind(page);
    page[name] = (what, ...rest) => {
      const caller = (new Error().stack.split('\n')[2] || '').trim();
      return wait(what, ...rest).catch((e) => {
        const args = name === 'waitForFunction' && rest.length > 1 ? ` with ${JSON.stringify(rest.slice(1))}` : '';
        throw new Error(`${e.message} in ${name}(${String(what).replace(/\s+/g, ' ')})${args} ${caller}`);
      });
    };
  }
  return page;
}

// Clicks the element `selector` names through the page itself (HTMLElement.click: a submit
// button submits its form with it, a checkbox toggles): a mouse click lands where the element
// was, and the live panels above it (the flame graph's depth, the timeline's threads, panels
// laid out as they come into sight) move it now and then, so a click could miss.
export async function press(page, selector) {
  await page.$eval(selector, (e) => { e.scrollIntoView({ block: 'center' }); e.click(); });
}

// Debian's headless chromium on the dashboard at `url`, ready (the page set data-ready): every
// console error, page error and failed request of the page is pushed to `consoleErrors`, which
// the test checks at its end. Its waits say what they waited for (describeWaits).
export async function openDashboard(puppeteer, chromium, url, consoleErrors, timeoutMs) {
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const page = describeWaits(await browser.newPage());
  await page.setViewport({ width: 1400, height: 1300 });
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('requestfailed', (r) => consoleErrors.push(`request failed: ${r.url()}`));
  page.setDefaultTimeout(timeoutMs);
  await page.goto(url + '/');
  await page.waitForSelector('body[data-ready="true"]');
  return { browser, page };
}

// Resolves with the match of `pattern` in the child's standard error.
function stderrMatch(child, pattern, what) {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (d) => {
      text += d;
      const m = text.match(pattern);
      if (m) resolve(m);
    };
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${what} exited (${code}): ${text}`)));
  });
}

export class Processes {
  constructor() {
    this.children = [];
    this.dir = mkdtempSync(join(tmpdir(), 'perfdm-dashboard-'));
  }

  // The workload, running for `seconds`; resolves with its pid once it runs its own code.
  async workload(binary, seconds) {
    const child = spawn(binary, [String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.children.push(child);
    const pid = await within(10000, 'the workload to start', new Promise((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (d) => {
        text += d;
        const m = text.match(/^(\d+)\n/);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`the workload exited (${code})`)));
    }));
    return pid;
  }

  // A workload of examples/pc/ (`pc_cpu [seconds]`, …): resolves with its pid once it printed
  // its first line, `<name>: pid <pid>, running <s> s`.
  // Its standard output is kept: output(pid, pattern) waits for a line of it.
  async pcWorkload(binary, seconds, ...more) {
    const child = spawn(binary, [String(seconds), ...more.map(String)], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.children.push(child);
    return within(10000, `${binary} to start`, new Promise((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (d) => {
        text += d;
        child.text = text;
        const m = text.match(/: pid (\d+), running/);
        if (m) { child.pid_ = m[1]; resolve(m[1]); }
      });
      child.on('exit', (code) => reject(new Error(`${binary} exited (${code})`)));
    }));
  }

  // Resolves with the match of `pattern` in what pc workload `pid` printed, within `ms`.
  output(pid, pattern, ms) {
    const child = this.children.find(c => c.pid_ === pid);
    return within(ms, `${pattern} from ${pid}`, new Promise((resolve) => {
      const look = () => {
        const m = (child.text || '').match(pattern);
        if (m) { child.stdout.off('data', look); resolve(m); }
      };
      child.stdout.on('data', look);
      look();
    }));
  }

  // `perfdm engine --http 127.0.0.1:0 ARGS…`; resolves with the dashboard's base URL.
  async engine(binary, args = []) {
    const child = spawn(binary, ['engine', '--http', '127.0.0.1:0', '--log', join(this.dir, 'engine.log'), ...args],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    this.children.push(child);
    this.engineErrors = '';
    child.stderr.on('data', (d) => { this.engineErrors += d; });
    const m = await within(10000, 'the engine to serve', stderrMatch(child, /dashboard on (http:\/\/[^\s]+)\//, 'the engine'));
    return m[1];
  }

  async stop() {
    for (const child of this.children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const gone = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
