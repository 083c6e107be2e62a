// The perfdm dashboard: a client of the engine's WebSocket like any other (everything it does,
// a script can do with the same requests). It opens one stream, enables what the user asks,
// and draws what the stream delivers.

import { Connection, ProtocolError, attr, dm } from '/protocol.js';
import { Histogram } from '/histogram.js';
import { Consultant } from '/consultant.js';
import { FlamePanel } from '/flame_panel.js';
import { Timeline } from '/timeline.js';
import { Findings } from '/findings.js';

const $ = (id) => document.getElementById(id);
const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
const connection = new Connection(`${scheme}//${location.host}/ws`);

const state = {
  stream: null,
  phases: [],            // [{id, name, start, end}] as PHASES says
  currentPhase: '0',
  charts: new Map(),     // 'mi:GLOBAL' | 'mi:CURRENT' | 'mi:archive:phase' → {histogram, mi, phase}
  enabled: new Map(),    // 'mi:PHASE' → {mi, metric, focus, phase}
  dirty: new Set(),      // charts with buckets not drawn yet
  metrics: new Map(),    // name → style
  resources: new Set(),
  firstScreen: new Set(),  // pids whose CPU and wait histograms the page enabled by itself
};

// ------------------------------------------------------------------- errors

// Every failed request is shown as the protocol reports it: code and reason.
function showError(error) {
  const box = document.createElement('div');
  box.className = 'error';
  box.textContent = error instanceof ProtocolError
    ? `${error.code}: ${error.reason}  ← ${error.request}`
    : String(error.message || error);
  $('errors').prepend(box);
  while ($('errors').children.length > 5) $('errors').lastChild.remove();
  setTimeout(() => box.remove(), 20000);
}

// A request whose failure the user should see.
async function run(xml) {
  try {
    return await connection.request(xml);
  } catch (e) {
    showError(e);
    throw e;
  }
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  td.title = text;
  row.append(td);
  return td;
}

function button(label, onclick) {
  const b = document.createElement('button');
  b.textContent = label;
  b.type = 'button';
  b.addEventListener('click', () => onclick().catch(() => {}));
  return b;
}

// ------------------------------------------------------------------- status

// Text written only when it changes: every write lays out and paints the page again (a
// status line rewritten each second with the same values was a repaint a second).
function setText(element, text) {
  const t = String(text);
  if (element.textContent !== t) element.textContent = t;
}

async function refreshStatus() {
  const status = (await connection.request(dm('STATUS'))).firstElementChild;
  setText($('st-clock'), Number(status.getAttribute('NOW')).toFixed(2));
  setText($('st-interval'), status.getAttribute('SAMPLEINTERVAL'));
  state.currentPhase = status.getAttribute('PHASE');
  setText($('st-phase'), state.currentPhase);
  const archived = new Map();  // phase id → [mi]
  for (const mi of status.querySelectorAll('MI'))
    for (const p of (mi.getAttribute('ARCHIVED') || '').split(' ').filter(Boolean)) {
      if (!archived.has(p)) archived.set(p, []);
      archived.get(p).push({ id: mi.getAttribute('ID'), metric: mi.getAttribute('METRIC'), focus: mi.getAttribute('FOCUS') });
    }
  state.archived = archived;
  const frames = (await connection.request(dm('FRAMES'))).firstElementChild;
  let lost = 0, torn = 0;
  for (const t of frames.querySelectorAll('FRAMETYPE')) {
    lost += Number(t.getAttribute('LOST'));
    torn += Number(t.getAttribute('TORN'));
  }
  setText($('st-lost'), lost);
  setText($('st-torn'), torn);
  // The count of open connections is the engine's own, not a protocol value: /metrics has it.
  const text = await (await fetch('/metrics')).text();
  const clients = text.match(/^perfdm_clients (\d+)/m);
  if (clients) setText($('st-clients'), clients[1]);
}

// ------------------------------------------------------------------- processes

async function refreshProcesses() {
  const list = (await connection.request(dm('PROCESSES'))).firstElementChild;
  const processes = [...list.querySelectorAll('PROCESS')];
  const watched = processes.filter(p => p.getAttribute('WATCHED') === 'true')
    .map(p => ({ pid: p.getAttribute('PID'), name: p.getAttribute('NAME') }));
  flame.setProcesses(watched);
  for (const w of watched) firstScreen(w.pid).catch(showError);
  // The tables are rebuilt only when something changed: no layout of the page for nothing.
  const signature = new XMLSerializer().serializeToString(list);
  if (signature === state.processSignature) return;
  state.processSignature = signature;
  const body = $('process-table').tBodies[0];
  body.replaceChildren();
  for (const p of processes) {
    const pid = p.getAttribute('PID');
    const row = body.insertRow();
    cell(row, pid);
    cell(row, p.getAttribute('NAME'));
    cell(row, p.getAttribute('FRAMES'));
    const active = p.getAttribute('ACTIVE') === 'true';
    const isWatched = p.getAttribute('WATCHED') === 'true';
    cell(row, active ? (isWatched ? 'watched' : 'attached') : 'ended');
    const actions = cell(row, '');
    if (active && p.getAttribute('FRAMES'))
      actions.append(button('Detach', () => run(dm('DETACH', `<PROCESS PID='${pid}'/>`)).then(refreshProcesses)));
    if (isWatched)
      actions.append(button('Unwatch', () => run(dm('UNWATCH', `<PROCESS PID='${pid}'/>`)).then(refreshProcesses)));
  }
  const select = $('profile-pid');
  const chosen = select.value;
  select.replaceChildren(...watched.map(w => new Option(`${w.pid} ${w.name}`, w.pid)));
  if (watched.some(w => w.pid === chosen)) select.value = chosen;
}

$('process-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const command = e.submitter?.dataset.command || 'WATCH';
  const pid = $('process-pid').value;
  run(dm(command, `<PROCESS PID='${attr(pid)}'/>`))
    .then(() => Promise.all([refreshProcesses(), loadMetrics(), loadResources()]))
    .catch(() => {});
});

// A useful first screen: a watched process's CPU and wait histograms (the PC metrics cpu,
// sync_wait, io_wait at its /Machine process resource, GLOBAL), enabled once, with no form.
const firstScreenMetrics = ['cpu', 'sync_wait', 'io_wait'];

async function firstScreen(pid) {
  if (state.firstScreen.has(pid)) return;
  state.firstScreen.add(pid);
  if (!state.stream) return;
  await Promise.all([loadMetrics(), loadResources()]);
  // The PC metrics' process is its /Machine/<host>/<name>{pid} resource (docs/NATIVE.md §8).
  const focus = [...state.resources].find(r => r.startsWith('/Machine/') && r.endsWith(`{${pid}}`) && r.split('/').length === 4);
  if (!focus) { state.firstScreen.delete(pid); return; }  // not yet defined: next time
  for (const metric of firstScreenMetrics) {
    if (!state.metrics.has(metric)) continue;
    const reply = await run(dm('ENABLE', `<ENABLE STREAM='${state.stream}' METRIC='${attr(metric)}' FOCUS='${attr(focus)}' PHASE='GLOBAL'/>`));
    const id = reply.firstElementChild.getAttribute('ID');
    const key = `${id}:GLOBAL`;
    if (state.charts.has(key)) continue;
    state.enabled.set(key, { mi: id, metric, focus, phase: 'GLOBAL' });
    const c = addChart(key, id, chartTitle(id, metric, focus, 'GLOBAL'), 'GLOBAL');
    c.histogram.card.dataset.first = 'true';
    c.histogram.chart.options.scales.y.title = { display: true, text: 's per s' };
    await loadChart(key);
  }
  renderEnabled();
}

// ------------------------------------------------------------------- metrics and resources

async function loadMetrics() {
  const list = (await connection.request(dm('METRICS'))).firstElementChild;
  for (const m of list.querySelectorAll('METRIC')) addMetric(m);
}

function addMetric(m) {
  const name = m.getAttribute('NAME');
  if (state.metrics.has(name)) return;
  state.metrics.set(name, m.getAttribute('STYLE'));
  const select = $('enable-metric');
  const options = [...select.options].map(o => o.value).concat(name).sort();
  const chosen = select.value;
  select.replaceChildren(...options.map(o => new Option(o, o)));
  if (chosen) select.value = chosen;
}

async function loadResources() {
  const list = (await connection.request(dm('RESOURCES'))).firstElementChild;
  for (const r of list.querySelectorAll('RESOURCE')) addResource(r.getAttribute('NAME'), r.getAttribute('PARENT'));
}

// The resource tree: one <li> per resource, under its parent's <ul>.
function addResource(name, parent) {
  if (state.resources.has(name)) return;
  state.resources.add(name);
  const li = document.createElement('li');
  li.dataset.name = name;
  const label = document.createElement('span');
  label.textContent = name === '/' ? '/' : name.slice(name.lastIndexOf('/') + 1);
  label.title = name;
  label.addEventListener('click', () => {
    const focus = $('enable-focus');
    const parts = focus.value.split(',').map(s => s.trim()).filter(s => s && s !== '/');
    // One resource per hierarchy: a resource replaces another of its hierarchy.
    const top = (s) => s.split('/')[1];
    const kept = parts.filter(p => top(p) !== top(name));
    focus.value = name === '/' ? '/' : kept.concat(name).join(',');
  });
  li.append(label, document.createElement('ul'));
  const parentLi = parent ? document.querySelector(`#resource-tree li[data-name="${CSS.escape(parent)}"]`) : null;
  const container = parentLi ? parentLi.querySelector(':scope > ul') : $('resource-tree');
  if (!parentLi && !parent) {
    const ul = document.createElement('ul');
    ul.append(li);
    container.append(ul);
  } else {
    container.append(li);
  }
}

// ------------------------------------------------------------------- enabling and charts

function chartTitle(mi, metric, focus, phase) {
  return `MI ${mi} ${metric} @ ${focus} — ${phase}`;
}

async function loadChart(key) {
  const c = state.charts.get(key);
  try {
    const reply = await connection.request(dm('DATA', `<DATA MI='${c.mi}' PHASE='${c.phase}'/>`));
    c.histogram.load(reply.firstElementChild, c.archived);
  } catch (e) {
    // A current histogram may be gone after a new phase (the MI was not enabled again).
    if (e instanceof ProtocolError && e.code === 'BAD_ARGUMENT') {
      c.histogram.values = [];
      c.histogram.render();
      c.histogram.info.textContent = ` ${e.reason}`;
    }
    else showError(e);
  }
}

function addChart(key, mi, title, phase, archived = false) {
  if (state.charts.has(key)) return state.charts.get(key);
  const histogram = new Histogram($('charts'), title, state.phases);
  histogram.card.dataset.key = key;
  observer.observe(histogram.card);
  const c = { histogram, mi, phase, archived };
  state.charts.set(key, c);
  return c;
}

$('enable-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const metric = $('enable-metric').value;
  const focus = $('enable-focus').value || '/';
  const phase = $('enable-phase').value;
  const flags = `PERSISTENT_DATA='${$('flag-data').checked}' PERSISTENT_COLLECTION='${$('flag-collection').checked}' PHASE_PERSISTENT_DATA='${$('flag-phase-data').checked}'`;
  try {
    const reply = await run(dm('ENABLE', `<ENABLE STREAM='${state.stream}' METRIC='${attr(metric)}' FOCUS='${attr(focus)}' PHASE='${phase}' ${flags}/>`));
    const mi = reply.firstElementChild;
    const id = mi.getAttribute('ID');
    const key = `${id}:${phase}`;
    state.enabled.set(key, { mi: id, metric, focus: mi.getAttribute('FOCUS'), phase });
    renderEnabled();
    addChart(key, id, chartTitle(id, metric, mi.getAttribute('FOCUS'), phase), phase);
    await loadChart(key);
  } catch (_) { /* shown */ }
});

function renderEnabled() {
  const body = $('mi-table').tBodies[0];
  body.replaceChildren();
  for (const [key, x] of state.enabled) {
    const row = body.insertRow();
    cell(row, x.mi);
    cell(row, x.metric);
    cell(row, x.focus);
    cell(row, x.phase);
    cell(row, '').append(button('Disable', async () => {
      await run(dm('DISABLE', `<DISABLE STREAM='${state.stream}' MI='${x.mi}' PHASE='${x.phase}'/>`));
      state.enabled.delete(key);
      const c = state.charts.get(key);
      if (c) { observer.unobserve(c.histogram.card); c.histogram.remove(); state.charts.delete(key); }
      renderEnabled();
    }));
  }
}

// ------------------------------------------------------------------- phases

async function refreshPhases() {
  const list = (await connection.request(dm('PHASES'))).firstElementChild;
  state.phases.length = 0;
  for (const p of list.querySelectorAll('PHASE'))
    state.phases.push({ id: p.getAttribute('ID'), name: p.getAttribute('NAME'), start: Number(p.getAttribute('START')), end: Number(p.getAttribute('END')) });
  flame.setPhases(state.phases);
  timeline.setPhases(state.phases);
  renderPhases();
}

function renderPhases() {
  // Rebuilt only when something changed: a button under the pointer stays where it is.
  const signature = JSON.stringify([state.phases, [...(state.archived || new Map())]]);
  if (signature === state.phaseSignature) return;
  state.phaseSignature = signature;
  const body = $('phase-table').tBodies[0];
  body.replaceChildren();
  for (const p of state.phases) {
    const row = body.insertRow();
    row.dataset.phase = p.id;
    cell(row, p.id);
    cell(row, p.name);
    cell(row, p.start);
    cell(row, p.end < 0 ? 'current' : p.end);
    const archive = cell(row, '');
    for (const mi of (state.archived && state.archived.get(p.id)) || [])
      archive.append(button(`MI ${mi.id} ${mi.metric}`, () => openArchived(mi, p)));
  }
}

async function openArchived(mi, phase) {
  const key = `${mi.id}:archive:${phase.id}`;
  const c = addChart(key, mi.id, `${chartTitle(mi.id, mi.metric, mi.focus, phase.name)} (archived)`, phase.id, true);
  c.histogram.card.dataset.archived = 'true';
  c.histogram.actions.replaceChildren(button('Close', async () => { c.histogram.remove(); state.charts.delete(key); }));
  await loadChart(key);
}

$('phase-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const name = $('phase-name').value;
  try {
    await run(dm('PHASE', name ? `<PHASE NAME='${attr(name)}'/>` : ''));
    $('phase-name').value = '';
    await refreshStatus();
    await refreshPhases();
  } catch (_) { /* shown */ }
});

// ------------------------------------------------------------------- CPU profile, threads

async function refreshProfile() {
  const pid = $('profile-pid').value;
  if (!pid) return;
  const counters = (await connection.request(dm('PROFILE', `<PROCESS PID='${pid}'/>`))).firstElementChild;
  $('profile-summary').textContent = `${counters.getAttribute('SAMPLES')} samples over ${Number(counters.getAttribute('MONTIME')).toFixed(2)} s`;
  const items = [...counters.querySelectorAll('ITEM')]
    .map(i => ({ name: i.getAttribute('NAME'), total: Number(i.getAttribute('TOTAL')), base: Number(i.getAttribute('BASE')) }))
    .sort((a, b) => b.total - a.total || b.base - a.base)
    .slice(0, 15);
  const body = $('profile-table').tBodies[0];
  body.replaceChildren();
  for (const i of items) {
    const row = body.insertRow();
    cell(row, i.name);
    cell(row, i.total);
    cell(row, i.base);
  }
  const threads = (await connection.request(dm('STACKS', `<PROCESS PID='${pid}'/>`))).firstElementChild;
  const tbody = $('thread-table').tBodies[0];
  tbody.replaceChildren();
  for (const t of threads.querySelectorAll('THREAD')) {
    const row = tbody.insertRow();
    cell(row, t.getAttribute('ID'));
    cell(row, t.getAttribute('NAME'));
    cell(row, t.getAttribute('STATE'));
    const top = t.querySelector('STACK');
    cell(row, top ? top.getAttribute('FUNCTION') : '');
  }
}

$('profile-refresh').addEventListener('click', () => refreshProfile().catch(showError));

// ------------------------------------------------------------------- stream events

function redrawSoon(key) {
  state.dirty.add(key);
}

// Redraw only what changed, no more often than the eye needs: once a second, and a chart
// out of sight waits until it is scrolled into view (its buckets are kept meanwhile).
const visible = new Set();
const observer = new IntersectionObserver((entries) => {
  for (const e of entries) {
    const key = e.target.dataset.key;
    if (e.isIntersecting) { visible.add(key); if (state.dirty.has(key)) { state.charts.get(key)?.histogram.render(); state.dirty.delete(key); } }
    else visible.delete(key);
  }
});
setInterval(() => {
  if (document.hidden) return;
  for (const key of state.dirty) {
    if (!visible.has(key)) { state.charts.get(key)?.histogram.mark(); continue; }
    state.charts.get(key)?.histogram.render();
    state.dirty.delete(key);
  }
}, 1000);

const consultant = new Consultant(connection, $('shg-state'), $('shg-tree'));
const flame = new FlamePanel(connection, showError);
const timeline = new Timeline(connection, $('timeline'), $('timeline-legend'));
// A finding chosen: its function lit in the flame graph, shown in the view of what the
// hypothesis is about (CPU, lock waits, I/O waits), and its thread's row in the timeline.
const hypothesisViews = { CPUbound: 'cpu', ExcessiveSyncWaitingTime: 'lock', ExcessiveIOBlockingTime: 'io', TooManySmallIOOps: 'io' };
const findings = new Findings(connection, $('findings'), (f) => {
  const view = hypothesisViews[f.hypothesis];
  if (f.fn && view && $('flame-view').value !== view && !$('diff-on').checked) {
    $('flame-view').value = view;
    $('flame-view').dispatchEvent(new Event('change'));
  }
  flame.highlight(f.fn);
  timeline.highlightThread(f.tid);
});

async function refreshFindings() {
  const list = await findings.refresh(consultant.nodeList());
  timeline.setFindings(list.map(f => ({ tid: f.tid, since: f.since, text: f.text })));
}
consultant.onchange = () => refreshFindings().catch(showError);

async function refreshTimeline() {
  const pid = flame.pid();
  if (!pid || timeline.unsupported || document.hidden) return;
  try {
    flame.setThreads(await timeline.refresh(pid));
  } catch (e) {
    if (e instanceof ProtocolError && e.code === 'UNKNOWN_COMMAND') timeline.unsupported = true;
    else if (!(e instanceof ProtocolError && e.code === 'UNKNOWN_TARGET')) throw e;
  }
}

$('search-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const action = e.submitter?.dataset.action || 'START';
  try {
    const search = await consultant.search(action, $('search-phase').value,
      action === 'START' ? $('search-sufficient-time').value : '');
    $('search-state').textContent = `search ${search.getAttribute('ID')} (${search.getAttribute('PHASE')}`
      + (search.getAttribute('PHASE') === 'CURRENT' ? ` of phase ${search.getAttribute('PHASEID')}` : '')
      + `): ${search.getAttribute('STATE')}`
      + (search.getAttribute('COSTLIMITED') === 'true' ? ' — search slowed: cost limit reached' : '');
  } catch (error) {
    showError(error);
  }
});

connection.onData((values) => {
  for (const v of values) {
    const key = `${v.mi}:${v.phase}`;
    const c = state.charts.get(key);
    if (!c) continue;
    c.histogram.set(v.bucket, v.value);
    redrawSoon(key);
  }
});

connection.onEvent((e) => {
  if (e.hasAttribute('FOLD')) {
    // Re-read the histograms of that phase type: the engine's bins after the fold.
    const phase = e.getAttribute('PHASE');
    for (const [key, c] of state.charts) if (!c.archived && c.phase === phase) loadChart(key);
  } else if (e.hasAttribute('NEWPHASE')) {
    // N1: a new phase drops every current-phase subscription: this stream is no longer a
    // user to DISABLE; the chart stays, showing the new current histogram if there is one.
    for (const [key, x] of state.enabled) if (x.phase === 'CURRENT') state.enabled.delete(key);
    renderEnabled();
    refreshPhases().then(() => {
      for (const [key, c] of state.charts) if (c.phase === 'CURRENT') loadChart(key);
      for (const c of state.charts.values()) c.histogram.render();
    }).catch(showError);
  } else if (e.hasAttribute('SAMPLERATE')) {
    setText($('st-interval'), e.getAttribute('INTERVAL'));
  } else if (e.hasAttribute('NEWMETRIC')) {
    addMetric(e);
  } else if (e.hasAttribute('NEWRESOURCE')) {
    addResource(e.getAttribute('NAME'), e.getAttribute('PARENT'));
  } else if (e.hasAttribute('START') || e.hasAttribute('END')) {
    refreshProcesses().catch(showError);
  } else if (e.hasAttribute('SHGNODE')) {
    consultant.update(e);
  }
});

// ------------------------------------------------------------------- start

function every(ms, f) {
  const tick = () => f().catch((e) => { if (connection.ws.readyState === WebSocket.OPEN) showError(e); });
  setInterval(tick, ms);
}

async function start() {
  connection.onstate = (s, why) => {
    $('st-connection').textContent = s === 'open' ? 'open' : 'closed';
    if (s === 'closed') showError(new Error(why));
  };
  await connection.open();
  const stream = await run(dm('STREAM'));
  state.stream = stream.firstElementChild.getAttribute('ID');
  await Promise.all([loadMetrics(), loadResources(), refreshProcesses()]);
  await refreshStatus();
  await refreshPhases();
  await consultant.refresh();
  await Promise.all([flame.refresh(), refreshTimeline()]);
  document.body.dataset.ready = 'true';
  every(1000, () => flame.refresh());
  every(1000, refreshTimeline);
  every(1000, refreshStatus);
  every(2000, async () => { await refreshProcesses(); renderPhases(); });
  // The profile table is read only while in sight.
  const profileSeen = { now: false };
  new IntersectionObserver((es) => { for (const e of es) profileSeen.now = e.isIntersecting; }).observe($('profile'));
  every(2000, async () => { if (profileSeen.now && !document.hidden) await refreshProfile(); });
  every(3000, () => consultant.refresh());
  every(2000, refreshFindings);
}

start().catch(showError);
