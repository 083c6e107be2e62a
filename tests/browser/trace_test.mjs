// Trace export (perfdm log/read --trace-event): the Chrome Trace Event files are checked
// structurally (every event has the fields its phase type requires, counters are numeric,
// slices on a thread nest) and their values are compared with what `perfdm log` prints and
// with the frame counts `perfdm read` reports.
// Usage: node trace_test.mjs --perfdm BIN --workload BIN
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Processes, argument, within } from './engine.mjs';

const perfdm = argument('--perfdm');
const workloadBinary = argument('--workload');
const processes = new Processes();

function check(condition, what) {
  if (!condition) throw new Error(what);
}

// The structure every trace must have.
function checkStructure(trace) {
  check(Array.isArray(trace.traceEvents) && trace.traceEvents.length > 0, 'no traceEvents array');
  const slices = new Map();  // pid:tid → [[start, end, name]]
  for (const e of trace.traceEvents) {
    const where = JSON.stringify(e);
    check(typeof e.ph === 'string' && typeof e.name === 'string' && Number.isInteger(e.pid), `missing ph/name/pid: ${where}`);
    if (e.ph === 'M') {
      check(['process_name', 'thread_name'].includes(e.name) && typeof e.args?.name === 'string', `bad metadata: ${where}`);
    } else if (e.ph === 'C') {
      check(Number.isFinite(e.ts) && e.args && Object.keys(e.args).length > 0, `bad counter: ${where}`);
      for (const v of Object.values(e.args)) check(typeof v === 'number' && Number.isFinite(v), `counter not numeric: ${where}`);
    } else if (e.ph === 'X') {
      check(Number.isInteger(e.tid) && Number.isFinite(e.ts) && Number.isFinite(e.dur) && e.dur >= 0, `bad slice: ${where}`);
      const key = `${e.pid}:${e.tid}`;
      if (!slices.has(key)) slices.set(key, []);
      slices.get(key).push([e.ts, e.ts + e.dur, e.name]);
    } else {
      throw new Error(`unexpected phase type: ${where}`);
    }
  }
  // Complete events on one thread must nest: each begins after and ends before the one open.
  for (const [key, list] of slices) {
    list.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const open = [];
    for (const s of list) {
      while (open.length && open[open.length - 1][1] <= s[0]) open.pop();
      if (open.length) check(s[1] <= open[open.length - 1][1], `slice ${s[2]} overlaps ${open[open.length - 1][2]} on ${key}`);
      open.push(s);
    }
  }
  return slices;
}

function logTrace() {
  const log = join(processes.dir, 'demo.log');
  execFileSync(perfdm, ['demo', '--log', log], { stdio: 'ignore' });
  const out = join(processes.dir, 'demo.json');
  execFileSync(perfdm, ['log', log, '--trace-event', out]);
  const trace = JSON.parse(readFileSync(out, 'utf8'));
  const slices = checkStructure(trace);
  // The phases, inside the session.
  const names = [...slices.values()].flat().map(s => s[2]);
  check(names.includes('session') && names.includes('phase_0') && names.includes('busy'), `phases missing: ${names}`);
  // Every bucket `perfdm log` prints is a counter event of its MI's track, at its time.
  const rows = execFileSync(perfdm, ['log', log, '--module', 'dm'], { encoding: 'utf8' }).split('\n');
  const histograms = new Map();
  const mis = new Map();
  for (const line of rows) {
    if (!line || line.startsWith('#')) continue;
    const [, , counter, value, name] = line.split('\t');
    if (name.startsWith('mi ')) { const [, id, metric, focus] = name.split(' '); mis.set(id, `${metric} @ ${focus}`); }
    if (!name.startsWith('histogram ')) continue;
    if (!histograms.has(name)) histograms.set(name, { buckets: [] });
    const h = histograms.get(name);
    if (counter === 'start') h.start = Number(value);
    else if (counter === 'width') h.width = Number(value);
    else if (counter.startsWith('bucket.')) h.buckets.push([Number(counter.slice(7)), Number(value)]);
  }
  const events = new Map();
  for (const e of trace.traceEvents) if (e.ph === 'C') events.set(`${e.name}|${e.ts}`, e.args.value);
  let compared = 0;
  for (const [name, h] of histograms) {
    const [, mi, ...which] = name.split(' ');
    const track = `MI ${mi} ${mis.get(mi)} (${which.join(' ')})`;
    for (const [i, v] of h.buckets) {
      const ts = (h.start + i * h.width) * 1e6;
      check(events.get(`${track}|${ts}`) === v, `${track} bucket ${i}: trace ${events.get(`${track}|${ts}`)}, log ${v}`);
      ++compared;
    }
  }
  check(compared > 100 && compared === [...events.keys()].length, `compared ${compared} buckets of ${events.size} counter events`);
  return compared;
}

async function readTrace() {
  const pid = await processes.workload(workloadBinary, 2);
  const attached = execFileSync(perfdm, ['attach', pid], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const segment = attached.trim().split('\t')[1];
  const out = join(processes.dir, 'frames.json');
  const reader = spawn(perfdm, ['read', segment, '--pid', pid, '--trace-event', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  reader.stderr.on('data', (d) => { err += d; });
  const code = await within(20000, 'perfdm read to end with the workload', new Promise((resolve) => reader.on('exit', resolve)));
  check(code === 0, `perfdm read exited ${code}: ${err}`);
  const m = err.match(/frames read (\d+), lost (\d+), torn (\d+)/);
  check(m, `no frame counts: ${err}`);
  const trace = JSON.parse(readFileSync(out, 'utf8'));
  checkStructure(trace);
  check(trace.otherData.frames_read === m[1], `metadata frames_read ${trace.otherData.frames_read}, read said ${m[1]}`);
  const counts = new Map();
  let requests = 0;
  for (const e of trace.traceEvents) {
    if (e.ph !== 'C') continue;
    check(e.pid === Number(pid), `counter in pid ${e.pid}, not ${pid}`);
    counts.set(e.name, (counts.get(e.name) || 0) + 1);
    if (e.name === 'work.requests') requests += e.args.value;
  }
  // One event per frame for every numeric field (the text field `stage` is left out).
  for (const field of ['work.requests', 'work.bytes', 'work.latency_us', 'work.queue_depth', 'work.worker'])
    check(counts.get(field) === Number(m[1]), `${field}: ${counts.get(field)} events for ${m[1]} frames`);
  check(!counts.has('work.stage'), 'a text field became a counter');
  check(requests === Number(m[1]) && requests > 0, `requests sum ${requests}, frames ${m[1]}`);  // one request per frame
  const names = trace.traceEvents.filter(e => e.ph === 'M' && e.pid === Number(pid));
  check(names.length === 1 && names[0].args.name.includes(pid), 'the writer process is not named');
  return Number(m[1]);
}

let status = 0;
try {
  const buckets = logTrace();
  const frames = await within(30000, 'the read trace', readTrace());
  console.log(`trace: ok (${buckets} buckets, ${frames} frames)`);
} catch (e) {
  console.error(`trace: FAILED: ${e.message}`);
  status = 1;
} finally {
  await processes.stop();
}
process.exit(status);
