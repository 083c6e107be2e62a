// Metrics and resources: the metrics (METRICS, NEWMETRIC) and the resource tree (RESOURCES,
// NEWRESOURCE; clicking a resource puts it in the focus, one per hierarchy); the enable form
// (ENABLE with GLOBAL or CURRENT and the three persistence flags) and the table of this
// stream's MIs with DISABLE. Charts are the histograms panel's.
//
// The first screen: a watched process's CPU and wait histograms (the PC metrics cpu,
// sync_wait, io_wait at its /Machine process resource, GLOBAL), enabled once, with no form.

import { $, button, cell } from '../dom.js';
import { dm } from '../protocol.js';

const firstScreenMetrics = ['cpu', 'sync_wait', 'io_wait'];

export class MetricsPanel {
  constructor(page, histograms) {
    this.page = page;
    this.connection = page.connection;
    this.state = page.state;
    this.histograms = histograms;
    this.firstScreen = new Set();  // pids whose CPU and wait histograms the page enabled by itself
    $('enable-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const flags = `PERSISTENT_DATA='${$('flag-data').checked}' PERSISTENT_COLLECTION='${$('flag-collection').checked}' PHASE_PERSISTENT_DATA='${$('flag-phase-data').checked}'`;
      await histograms.enable($('enable-metric').value, $('enable-focus').value || '/', $('enable-phase').value, flags)
        .catch(() => { /* shown */ });
    });
    this.state.subscribe('enabled', () => this.renderEnabled());
    this.state.subscribe('attached', () => this.load().catch(page.showError));
    this.state.subscribe('watched', (watched) => {
      for (const w of watched) this.showFirstScreen(w.pid).catch(page.showError);
    });
  }

  start() { return this.load(); }

  event(e) {
    if (e.hasAttribute('NEWMETRIC')) this.addMetric(e);
    else if (e.hasAttribute('NEWRESOURCE')) this.addResource(e.getAttribute('NAME'), e.getAttribute('PARENT'));
  }

  load() { return Promise.all([this.loadMetrics(), this.loadResources()]); }

  async loadMetrics() {
    const list = (await this.connection.request(dm('METRICS'))).firstElementChild;
    for (const m of list.querySelectorAll('METRIC')) this.addMetric(m);
  }

  addMetric(m) {
    const name = m.getAttribute('NAME');
    if (this.state.metrics.has(name)) return;
    this.state.metrics.set(name, m.getAttribute('STYLE'));
    const select = $('enable-metric');
    const options = [...select.options].map(o => o.value).concat(name).sort();
    const chosen = select.value;
    select.replaceChildren(...options.map(o => new Option(o, o)));
    if (chosen) select.value = chosen;
  }

  async loadResources() {
    const list = (await this.connection.request(dm('RESOURCES'))).firstElementChild;
    for (const r of list.querySelectorAll('RESOURCE')) this.addResource(r.getAttribute('NAME'), r.getAttribute('PARENT'));
  }

  // The resource tree: one <li> per resource, under its parent's <ul>.
  addResource(name, parent) {
    if (this.state.resources.has(name)) return;
    this.state.resources.add(name);
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

  renderEnabled() {
    const body = $('mi-table').tBodies[0];
    body.replaceChildren();
    for (const [key, x] of this.state.enabled) {
      const row = body.insertRow();
      cell(row, x.mi);
      cell(row, x.metric);
      cell(row, x.focus);
      cell(row, x.phase);
      cell(row, '').append(button('Disable', () => this.histograms.disable(key)));
    }
  }

  async showFirstScreen(pid) {
    if (this.firstScreen.has(pid)) return;
    this.firstScreen.add(pid);
    if (!this.state.stream) return;
    await this.load();
    // The PC metrics' process is its /Machine/<host>/<name>{pid} resource (docs/NATIVE.md §8).
    const focus = [...this.state.resources].find(r => r.startsWith('/Machine/') && r.endsWith(`{${pid}}`) && r.split('/').length === 4);
    if (!focus) { this.firstScreen.delete(pid); return; }  // not yet defined: next time
    for (const metric of firstScreenMetrics) {
      if (!this.state.metrics.has(metric)) continue;
      await this.histograms.enable(metric, focus, 'GLOBAL', '', (c) => {
        c.histogram.card.dataset.first = 'true';
        c.histogram.chart.options.scales.y.title = { display: true, text: 's per s' };
      });
    }
  }
}
