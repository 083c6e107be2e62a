// The thread timeline (Paradyn's "when", docs/DASHBOARD.md §4): one row per thread of a
// process, its state over time from the stack samples (TIMELINE's RUNs: running, lock, io,
// sleep, other), phase starts as dashed lines, the search's findings as marks at their SINCE
// time on their thread's row (every row when a finding names no thread). SVG: each run's
// <title> says its state, function and time; a row's label is its thread.

import { svg as el } from '../dom.js';
import { threadStateColour, threadStateColours } from './thread_states.js';
import { attributes, startTagAttributes } from '../xml.js';

const rowHeight = 18;
const labelWidth = 150;

// A TIMELINE reply's text, read without an XML parser (a reply has a RUN per state change of
// every thread over up to 120 s, every second; its form is fixed: docs/FLAME.md §1):
// {from, to, threads: [{tid, name, runs: [{from, to, state, fn}]}]}.
export function parseTimeline(text) {
  const head = startTagAttributes(text, 'TIMELINE');
  return {
    from: Number(head.FROM),
    to: Number(head.TO),
    threads: [...text.matchAll(/<THREAD ([^>]*)>(.*?)<\/THREAD>/gs)].map(([, t, body]) => {
      const a = attributes(t);
      return {
        tid: a.TID, name: a.NAME || '',
        runs: [...body.matchAll(/<RUN ([^>]*)\/>/g)].map(([, r]) => {
          const x = attributes(r);
          return { from: Number(x.FROM), to: Number(x.TO), state: x.STATE, fn: x.FUNCTION || '' };
        }),
      };
    }),
  };
}

export class Timeline {
  constructor(container, legend) {
    this.container = container;
    this.threads = [];
    this.phases = [];
    this.findings = [];
    this.selected = '';  // a finding's thread, highlighted
    this.signature = '';
    legend.replaceChildren(...Object.entries(threadStateColours).map(([s, c]) => {
      const span = document.createElement('span');
      span.className = 'legend';
      span.innerHTML = `<i style="background:${c}"></i>`;
      span.append(s);
      return span;
    }));
  }

  // A timeline as parseTimeline reads it.
  show({ from, to, threads }) {
    Object.assign(this, { from, to, threads });
    this.render();
  }

  setPhases(phases) { this.phases = phases; }

  // Findings [{tid, since, text}] to mark.
  setFindings(findings) {
    const signature = JSON.stringify(findings);
    if (signature === this.findingSignature) return;
    this.findingSignature = signature;
    this.findings = findings;
    this.render();
  }

  highlightThread(tid) {
    this.selected = tid || '';
    for (const row of this.container.querySelectorAll('g.timeline-row'))
      row.classList.toggle('selected', row.dataset.tid === this.selected);
    this.container.dataset.selected = this.selected;
  }

  render() {
    if (!this.threads.length) {
      this.container.replaceChildren();
      return;
    }
    const width = Math.max(500, this.container.clientWidth - 4);
    const span = Math.max(1e-6, this.to - this.from);
    const plot = width - labelWidth - 10;
    const x = (t) => labelWidth + Math.max(0, Math.min(plot, (t - this.from) / span * plot));
    const height = (this.threads.length + 1) * rowHeight + 14;
    const svg = el('svg', { width, height, role: 'img', 'aria-label': 'thread states over time' });
    this.threads.forEach((t, i) => {
      const y = i * rowHeight;
      const row = el('g', { class: 'timeline-row', 'data-tid': t.tid });
      if (t.tid === this.selected) row.classList.add('selected');
      row.append(el('rect', { class: 'timeline-band', x: 0, y, width, height: rowHeight }));
      row.append(el('text', { x: 4, y: y + 13, class: 'timeline-label' }, `${t.tid} ${t.name}`));
      // Runs narrower than half a pixel join the one before: the eye cannot see them, and a
      // thread that changes state at each sample would otherwise cost thousands of nodes.
      let last = null;
      for (const r of t.runs) {
        const x0 = x(r.from), x1 = x(r.to);
        if (last && x1 - Number(last.getAttribute('x')) - Number(last.getAttribute('width')) < 0.5 && x1 - x0 < 0.5) {
          last.setAttribute('width', Math.max(0.5, x1 - Number(last.getAttribute('x'))));
          continue;
        }
        const rect = el('rect', { x: x0, y: y + 2, width: Math.max(0.5, x1 - x0), height: rowHeight - 4, fill: threadStateColour(r.state), 'data-state': r.state });
        rect.append(el('title', {}, `${t.name} ${r.state} ${r.from.toFixed(2)}–${r.to.toFixed(2)} s${r.fn ? ' in ' + r.fn : ''}`));
        row.append(rect);
        last = rect;
      }
      svg.append(row);
    });
    const bottom = this.threads.length * rowHeight;
    // The time axis: engine seconds.
    for (let k = 0; k <= 5; k++) {
      const t = this.from + span * k / 5;
      svg.append(el('text', { x: x(t), y: bottom + 12, class: 'timeline-axis', 'text-anchor': k === 0 ? 'start' : k === 5 ? 'end' : 'middle' }, `${t.toFixed(1)} s`));
    }
    for (const p of this.phases) {
      if (p.start <= this.from || p.start > this.to) continue;
      const px = x(p.start);
      const g = el('g', { class: 'timeline-phase', 'data-phase': p.id });
      g.append(el('line', { x1: px, x2: px, y1: 0, y2: bottom, stroke: '#1c2833', 'stroke-width': 2, 'stroke-dasharray': '4 3' }));
      g.append(el('text', { x: px + 3, y: bottom + 24, class: 'timeline-phase-label' }, `phase ${p.name || p.id}`));
      svg.append(g);
    }
    svg.setAttribute('height', height + 12);
    for (const f of this.findings) {
      if (!(f.since >= this.from && f.since <= this.to)) continue;
      const rows = this.threads.map((t, i) => [t, i]).filter(([t]) => !f.tid || t.tid === f.tid);
      for (const [, i] of rows) {
        const px = x(f.since), y = i * rowHeight;
        const mark = el('path', { d: `M${px - 5},${y} L${px + 5},${y} L${px},${y + 8} Z`, class: 'timeline-finding', 'data-tid': f.tid || '' });
        mark.append(el('title', {}, f.text));
        svg.append(mark);
      }
    }
    this.container.replaceChildren(svg);
    this.container.dataset.threads = String(this.threads.length);
  }
}
