// A real Prometheus (Debian's, bound to 127.0.0.1, a temporary configuration scraping every
// 0.5 s) scrapes `perfdm engine --http`'s GET /metrics while the engine observes the bundled
// workload; the test asks Prometheus's HTTP API for the workload's series and compares their
// values with what the engine's DATA says.
// Usage: node prometheus_test.mjs --perfdm BIN --workload BIN [--prometheus BIN]
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Processes, argument, within } from './engine.mjs';

const perfdm = argument('--perfdm');
const workloadBinary = argument('--workload');
const prometheusBinary = argument('--prometheus', '/usr/bin/prometheus');
const processes = new Processes();

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// A WebSocket client of the engine: one request at a time, replies in order.
async function wsClient(url) {
  const ws = new WebSocket(url.replace('http:', 'ws:') + '/ws');
  await new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject); });
  const waiting = [];
  ws.on('message', (m) => {
    const text = String(m);
    if (text.startsWith('<DYPER_REPLY')) waiting.shift()(text);
  });
  return {
    ask: (xml) => new Promise((resolve) => { waiting.push(resolve); ws.send(xml); }),
    close: () => ws.close(),
  };
}

const dm = (command, argument = '') => argument ? `<DYPER PID='DM' COMMAND='${command}'>${argument}</DYPER>` : `<DYPER PID='DM' COMMAND='${command}'/>`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const pid = await processes.workload(workloadBinary, 60);
  const url = await processes.engine(perfdm, ['--base-width', '0.05']);
  const c = await wsClient(url);
  const ok = (reply) => { if (reply.includes("ERROR='")) throw new Error(reply); return reply; };
  ok(await c.ask(dm('ATTACH', `<PROCESS PID='${pid}'/>`)));
  ok(await c.ask(dm('STREAM')));
  ok(await c.ask(dm('ENABLE', "<ENABLE STREAM='0' METRIC='work.requests' PERSISTENT_DATA='true'/>")));
  ok(await c.ask(dm('ENABLE', "<ENABLE STREAM='0' METRIC='work.bytes' PERSISTENT_DATA='true'/>")));
  await sleep(2500);
  // Detached, the workload sends nothing more: the values stop moving and can be compared.
  ok(await c.ask(dm('DETACH', `<PROCESS PID='${pid}'/>`)));
  await sleep(500);
  const expected = {};
  for (const [mi, metric] of [[0, 'work.requests'], [1, 'work.bytes']]) {
    const reply = ok(await c.ask(dm('DATA', `<DATA MI='${mi}' PHASE='GLOBAL'/>`)));
    const values = reply.replace(/^.*<HISTOGRAM[^>]*>/, '').replace(/<\/HISTOGRAM>.*$/, '').trim().split(/\s+/).map(v => (v === 'nan' ? NaN : Number(v)));
    expected[metric] = {
      total: values.filter(v => !Number.isNaN(v)).reduce((a, b) => a + b, 0),
      latest: values[values.length - 2],
    };
    if (!(expected[metric].total > 0)) throw new Error(`no ${metric} data: ${reply.slice(0, 200)}`);
  }
  c.close();

  const port = await freePort();
  const dir = join(processes.dir, 'prometheus');
  mkdirSync(dir);
  const target = url.replace('http://', '');
  writeFileSync(join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\nscrape_configs:\n  - job_name: perfdm\n    static_configs:\n      - targets: ['${target}']\n`);
  const prometheus = spawn(prometheusBinary, [
    `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=error'], { stdio: ['ignore', 'ignore', 'inherit'] });
  processes.children.push(prometheus);
  const api = `http://127.0.0.1:${port}/api/v1/query?query=`;
  const query = async (q) => {
    try {
      const r = await fetch(api + encodeURIComponent(q));
      if (!r.ok) return [];
      return (await r.json()).data.result;
    } catch (_) { return []; }  // not up yet
  };
  let found;
  await within(20000, 'Prometheus to hold the workload series', (async () => {
    for (;;) {
      found = await query('perfdm_value_total{metric=~"work.requests|work.bytes",focus="/",phase="global"}');
      if (found.length === 2) return;
      await sleep(250);
    }
  })());
  for (const s of found) {
    const want = expected[s.metric.metric].total;
    if (Number(s.value[1]) !== want) throw new Error(`${s.metric.metric} total: Prometheus has ${s.value[1]}, DATA says ${want}`);
  }
  const latest = await query('perfdm_bucket_value{metric="work.requests",phase="global"}');
  if (latest.length !== 1 || Number(latest[0].value[1]) !== expected['work.requests'].latest)
    throw new Error(`latest bucket: Prometheus has ${JSON.stringify(latest)}, DATA says ${expected['work.requests'].latest}`);
  const up = await query('up{job="perfdm"}');
  if (up.length !== 1 || up[0].value[1] !== '1') throw new Error(`up: ${JSON.stringify(up)}`);
  const frames = await query('perfdm_frames_read_total');
  if (frames.length !== 1 || !(Number(frames[0].value[1]) > 0)) throw new Error(`frames read: ${JSON.stringify(frames)}`);
  console.log(`prometheus: ok (work.requests total ${expected['work.requests'].total}, work.bytes total ${expected['work.bytes'].total})`);
}

let status = 0;
try {
  await within(60000, 'the Prometheus test', main());
} catch (e) {
  console.error(`prometheus: FAILED: ${e.message}`);
  if (processes.engineErrors) console.error(`engine stderr: ${processes.engineErrors}`);
  status = 1;
} finally {
  await processes.stop();
}
process.exit(status);
