// Histograms: one live chart (histogram.js) per histogram this stream enabled, or archived one
// opened. A chart starts from DATA (without the bucket still filling) and adds buckets as DATA
// events complete them; on FOLD the histograms of that phase type are read again (the engine's
// bins); after a new phase a CURRENT chart is read again, or says why there is none.
// The enable form (metrics panel), the first screen and the phases table call enable() and
// openArchived(); the MI table lists state.enabled (topic 'enabled').

import { $, button } from '../dom.js';
import { Histogram } from '../charts/histogram.js';
import { ProtocolError, dm } from '../protocol.js';
import { attr } from '../xml.js';

function chartTitle(mi, metric, focus, phase) {
  return `MI ${mi} ${metric} @ ${focus} — ${phase}`;
}

export class HistogramsPanel {
  constructor(page) {
    this.page = page;
    this.connection = page.connection;
    this.state = page.state;
    this.charts = new Map();  // 'mi:GLOBAL' | 'mi:CURRENT' | 'mi:archive:phase' → {histogram, mi, phase, archived}
    this.dirty = new Set();   // charts with buckets not drawn yet
    this.visible = new Set();  // charts on screen
    this.every = 1000;
    // Redraw only what changed, no more often than the eye needs: once a second, and a chart
    // out of sight waits until it is scrolled into view (its buckets are kept meanwhile).
    this.observer = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const key = e.target.dataset.key;
        if (e.isIntersecting) {
          this.visible.add(key);
          if (this.dirty.has(key)) { this.charts.get(key)?.histogram.render(); this.dirty.delete(key); }
        } else this.visible.delete(key);
      }
    });
    this.connection.onData((values) => {
      for (const v of values) {
        const key = `${v.mi}:${v.phase}`;
        const c = this.charts.get(key);
        if (!c) continue;
        c.histogram.set(v.bucket, v.value);
        this.dirty.add(key);
      }
    });
    this.state.subscribe('newphase', () => {
      for (const [key, c] of this.charts) if (c.phase === 'CURRENT') this.load(key);
      for (const c of this.charts.values()) c.histogram.render();
    });
  }

  // Nothing to read (DATA events bring the buckets): what draws the charts with new buckets,
  // run with the tick's other drawing.
  async refresh() {
    return () => this.draw();
  }

  draw() {
    if (document.hidden) return;
    for (const key of this.dirty) {
      if (!this.visible.has(key)) { this.charts.get(key)?.histogram.mark(); continue; }
      this.charts.get(key)?.histogram.render();
      this.dirty.delete(key);
    }
  }

  event(e) {
    if (e.hasAttribute('FOLD')) {
      // Re-read the histograms of that phase type: the engine's bins after the fold.
      const phase = e.getAttribute('PHASE');
      for (const [key, c] of this.charts) if (!c.archived && c.phase === phase) this.load(key);
    } else if (e.hasAttribute('NEWPHASE')) {
      // N1: a new phase drops every current-phase subscription: this stream is no longer a
      // user to DISABLE; the chart stays, showing the new current histogram if there is one
      // (topic 'newphase', once the phases are read again).
      for (const [key, x] of this.state.enabled) if (x.phase === 'CURRENT') this.state.enabled.delete(key);
      this.state.publish('enabled', this.state.enabled);
    }
  }

  // ENABLE `metric` at `focus` for `phase` (GLOBAL, CURRENT) with `flags` (attributes), and
  // its chart (a new one is handed to `prepare` before it is drawn). Resolves once its DATA is
  // drawn; a refusal is shown and rejects.
  async enable(metric, focus, phase, flags = '', prepare = () => {}) {
    const reply = await this.page.run(dm('ENABLE', `<ENABLE STREAM='${this.state.stream}' METRIC='${attr(metric)}' FOCUS='${attr(focus)}' PHASE='${phase}'${flags ? ' ' + flags : ''}/>`));
    const mi = reply.firstElementChild;
    const id = mi.getAttribute('ID');
    const key = `${id}:${phase}`;
    this.state.enabled.set(key, { mi: id, metric, focus: mi.getAttribute('FOCUS'), phase });
    this.state.publish('enabled', this.state.enabled);
    const known = this.charts.has(key);
    const c = this.add(key, id, chartTitle(id, metric, mi.getAttribute('FOCUS'), phase), phase);
    if (!known) prepare(c);
    await this.load(key);
  }

  async disable(key) {
    const x = this.state.enabled.get(key);
    await this.page.run(dm('DISABLE', `<DISABLE STREAM='${this.state.stream}' MI='${x.mi}' PHASE='${x.phase}'/>`));
    this.state.enabled.delete(key);
    this.remove(key);
    this.state.publish('enabled', this.state.enabled);
  }

  // The archived histogram of MI `mi` ({id, metric, focus}) in phase `phase` ({id, name}).
  async openArchived(mi, phase) {
    const key = `${mi.id}:archive:${phase.id}`;
    const c = this.add(key, mi.id, `${chartTitle(mi.id, mi.metric, mi.focus, phase.name)} (archived)`, phase.id, true);
    c.histogram.card.dataset.archived = 'true';
    c.histogram.actions.replaceChildren(button('Close', async () => this.remove(key)));
    await this.load(key);
  }

  add(key, mi, title, phase, archived = false) {
    if (this.charts.has(key)) return this.charts.get(key);
    const histogram = new Histogram($('charts'), title, this.state.phases);
    histogram.card.dataset.key = key;
    this.observer.observe(histogram.card);
    const c = { histogram, mi, phase, archived };
    this.charts.set(key, c);
    return c;
  }

  remove(key) {
    const c = this.charts.get(key);
    if (!c) return;
    this.observer.unobserve(c.histogram.card);
    c.histogram.remove();
    this.charts.delete(key);
  }

  async load(key) {
    const c = this.charts.get(key);
    try {
      const reply = await this.connection.request(dm('DATA', `<DATA MI='${c.mi}' PHASE='${c.phase}'/>`));
      c.histogram.load(reply.firstElementChild, c.archived);
    } catch (e) {
      // A current histogram may be gone after a new phase (the MI was not enabled again).
      if (e instanceof ProtocolError && e.code === 'BAD_ARGUMENT') {
        c.histogram.values = [];
        c.histogram.render();
        c.histogram.info.textContent = ` ${e.reason}`;
      }
      else this.page.showError(e);
    }
  }
}
