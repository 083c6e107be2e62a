// Files (docs/DASHBOARD.md §4): the files the watched programs read and write, as perfdm's I/O
// library counts them (the file.* metrics, docs/IO.md §8), while they run. Every 2 s while in
// sight:
// - each file resource (a /File leaf) gets its file.read_bytes, file.write_bytes,
//   file.read_time, file.write_time and file.meta_time enabled on the page's stream (at most
//   maxFiles files; a resource that turns out to be a directory is disabled again), and the
//   top files by I/O time are read from GET /metrics (perfdm_value_total: every bucket, the
//   filling one included) — the library's totals, exact;
// - the heatmap: bytes read and written per process and time bucket (DATA of file.read_bytes
//   and file.write_bytes at each watched process's /Machine resource), darker where more moved.

import { $, cell, setText, svg } from '../dom.js';
import { dm } from '../protocol.js';
import { attr } from '../xml.js';

const fileMetrics = ['file.read_bytes', 'file.write_bytes', 'file.read_time', 'file.write_time', 'file.meta_time'];
const maxFiles = 50;
const shown = 15;

// A /File resource that names a file, not a socket, a pipe or an anonymous inode.
export function isFileResource(name) {
  return name.startsWith('/File/') && !/^\/File\/(socket|pipe|anon_inode):/.test(name);
}

// perfdm_value_total of the file.* metrics by focus: {focus: {metric: total}} (global phase).
export function fileTotals(metricsText) {
  const totals = new Map();
  const line = /^perfdm_value_total\{metric="(file\.[a-z_]+)",focus="((?:[^"\\]|\\.)*)",phase="global"\} (\S+)$/gm;
  for (const [, metric, focus, value] of metricsText.matchAll(line)) {
    const name = focus.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    if (!totals.has(name)) totals.set(name, {});
    // Bytes are whole: a sample split over buckets adds up to within rounding.
    totals.get(name)[metric] = metric.endsWith('_bytes') ? Math.round(Number(value)) : Number(value);
  }
  return totals;
}

// The rows of the top-files table: by I/O time (read + write + metadata), then bytes; a file
// that moved no bytes in under 0.1 ms of I/O time is left out.
export function topFiles(totals, files, count = shown) {
  const rows = [];
  for (const f of files) {
    const t = totals.get(f);
    if (!t) continue;
    const read = t['file.read_bytes'] || 0, written = t['file.write_bytes'] || 0;
    const time = (t['file.read_time'] || 0) + (t['file.write_time'] || 0) + (t['file.meta_time'] || 0);
    if (read + written === 0 && time < 1e-4) continue;  // opened, or a standard stream untouched
    rows.push({ file: f.slice('/File'.length), read, written, time });
  }
  rows.sort((a, b) => b.time - a.time || (b.read + b.written) - (a.read + a.written));
  return rows.slice(0, count);
}

export function bytesText(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; ++i; }
  return i === 0 ? `${n} B` : `${n.toFixed(1)} ${units[i]}`;
}

export class FilesPanel {
  constructor(page) {
    this.page = page;
    this.connection = page.connection;
    this.state = page.state;
    this.every = 2000;
    this.whileInSight = $('files');
    this.files = new Set();      // /File resources seen
    this.parents = new Set();    // /File resources with a resource below them (directories)
    this.enabled = new Map();    // resource → [{mi, metric}] enabled here
    this.heat = new Map();       // pid → {name, read: mi, write: mi}
  }

  start() { return this.loadResources(); }

  event(e) {
    if (e.hasAttribute('NEWRESOURCE')) this.addResource(e.getAttribute('NAME'), e.getAttribute('PARENT'));
  }

  async loadResources() {
    const list = (await this.connection.request(dm('RESOURCES'))).firstElementChild;
    for (const r of list.querySelectorAll('RESOURCE')) this.addResource(r.getAttribute('NAME'), r.getAttribute('PARENT'));
  }

  addResource(name, parent) {
    if (!isFileResource(name)) return;
    this.files.add(name);
    if (parent && parent !== '/File') this.parents.add(parent);
  }

  async enable(metric, focus) {
    const reply = await this.page.run(dm('ENABLE', `<ENABLE STREAM='${this.state.stream}' METRIC='${attr(metric)}' FOCUS='${attr(focus)}' PHASE='GLOBAL'/>`));
    return reply.firstElementChild.getAttribute('ID');
  }

  // Every file gets its MIs, a directory loses them; each watched process its heatmap rows.
  async enableWhatIsNew() {
    if (this.state.stream === null || !fileMetrics.every(m => this.state.metrics.has(m))) return;
    for (const [focus, mis] of this.enabled) {
      if (!this.parents.has(focus)) continue;
      for (const x of mis) await this.page.run(dm('DISABLE', `<DISABLE STREAM='${this.state.stream}' MI='${x.mi}' PHASE='GLOBAL'/>`));
      this.enabled.delete(focus);
    }
    for (const f of this.files) {
      if (this.enabled.size >= maxFiles) break;
      if (this.parents.has(f) || this.enabled.has(f)) continue;
      const mis = [];
      for (const metric of fileMetrics) mis.push({ mi: await this.enable(metric, f), metric });
      this.enabled.set(f, mis);
    }
    for (const w of this.state.watched) {
      if (this.heat.has(w.pid)) continue;
      const machine = [...this.state.resources].find(r => r.startsWith('/Machine/') && r.endsWith(`{${w.pid}}`) && r.split('/').length === 4);
      if (!machine) continue;  // not defined yet: next time
      this.heat.set(w.pid, {
        name: w.name,
        read: await this.enable('file.read_bytes', machine),
        write: await this.enable('file.write_bytes', machine),
      });
    }
  }

  async histogram(mi) {
    const h = (await this.connection.request(dm('DATA', `<DATA MI='${mi}' PHASE='GLOBAL'/>`))).firstElementChild;
    const text = h.textContent.trim();
    return {
      start: Number(h.getAttribute('START')),
      width: Number(h.getAttribute('WIDTH')),
      values: text ? text.split(/\s+/).map(Number) : [],
    };
  }

  async refresh() {
    await this.enableWhatIsNew();
    const totals = fileTotals(await fetch('/metrics').then(r => r.text()));
    const rows = topFiles(totals, this.enabled.keys());
    const lanes = [];
    for (const [pid, h] of this.heat) {
      lanes.push({ label: `${h.name} ${pid} read`, ...(await this.histogram(h.read)) });
      lanes.push({ label: `${h.name} ${pid} write`, ...(await this.histogram(h.write)) });
    }
    return () => this.draw(rows, lanes);
  }

  draw(rows, lanes) {
    setText($('files-summary'), rows.length
      ? `${rows.length} of the ${this.enabled.size} files the I/O library counted, by I/O time`
      : 'no file I/O counted yet (programs perfdm starts have the I/O library; see docs/IO.md §8)');
    const body = $('files-table').tBodies[0];
    body.replaceChildren();
    for (const r of rows) {
      const row = body.insertRow();
      cell(row, r.file).className = 'file';
      cell(row, bytesText(r.read));
      cell(row, bytesText(r.written));
      cell(row, r.time < 1 ? `${(r.time * 1000).toPrecision(3)} ms` : `${r.time.toFixed(3)} s`);
      row.dataset.file = r.file;
      row.dataset.read = r.read;
      row.dataset.written = r.written;
    }
    this.drawHeatmap(lanes);
  }

  // One row per process and direction, one column per bucket; the darker, the more bytes.
  drawHeatmap(lanes) {
    const area = $('files-heatmap');
    const buckets = Math.max(0, ...lanes.map(l => l.values.length));
    const labelWidth = 170, width = 640, rowHeight = 16;
    const max = Math.max(0, ...lanes.flatMap(l => l.values.filter(Number.isFinite)));
    const g = svg('svg', { width: labelWidth + width, height: rowHeight * lanes.length + 18, role: 'img',
      'aria-label': 'bytes per process and time' });
    const cellWidth = buckets ? width / buckets : width;
    lanes.forEach((l, i) => {
      const y = i * rowHeight;
      g.append(svg('text', { x: 0, y: y + 12, class: 'heat-label' }, l.label));
      l.values.forEach((v, b) => {
        if (!Number.isFinite(v) || v <= 0) return;
        const shade = Math.sqrt(v / max);
        const rect = svg('rect', { x: labelWidth + b * cellWidth, y, width: Math.max(cellWidth, 1), height: rowHeight - 2,
          fill: l.label.endsWith('read') ? `rgba(33, 102, 172, ${0.15 + 0.85 * shade})` : `rgba(178, 24, 43, ${0.15 + 0.85 * shade})` });
        const t0 = l.start + b * l.width;
        rect.append(svg('title', {}, `${l.label}: ${bytesText(v)} in ${t0.toFixed(1)}–${(t0 + l.width).toFixed(1)} s`));
        g.append(rect);
      });
    });
    if (buckets) {
      const end = lanes[0].start + buckets * lanes[0].width;
      g.append(svg('text', { x: labelWidth, y: rowHeight * lanes.length + 14, class: 'heat-label' }, `${lanes[0].start.toFixed(1)} s`));
      g.append(svg('text', { x: labelWidth + width, y: rowHeight * lanes.length + 14, 'text-anchor': 'end', class: 'heat-label' }, `${end.toFixed(1)} s`));
    }
    area.replaceChildren(g);
  }
}
