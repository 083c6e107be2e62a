// Phases: PHASE with an optional name; PHASES on start and at each new phase (published: the
// flame graph's scopes, the timeline's and the charts' phase marks follow it); for each phase
// the MIs with an archived histogram (STATUS's ARCHIVED), each opening a chart of
// `DATA PHASE='<id>'`.

import { $, button, cell } from '../dom.js';
import { dm } from '../protocol.js';
import { attr } from '../xml.js';

export class PhasesPanel {
  constructor(page, histograms) {
    this.page = page;
    this.connection = page.connection;
    this.state = page.state;
    this.histograms = histograms;
    this.state.subscribe('archived', () => this.render());
    $('phase-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const name = $('phase-name').value;
      try {
        await page.run(dm('PHASE', name ? `<PHASE NAME='${attr(name)}'/>` : ''));
        $('phase-name').value = '';
        await this.refresh();
      } catch (_) { /* shown */ }
    });
  }

  start() { return this.refresh(); }

  event(e) {
    if (e.hasAttribute('NEWPHASE'))
      this.refresh().then(() => this.state.publish('newphase', e)).catch(this.page.showError);
  }

  async refresh() {
    const list = (await this.connection.request(dm('PHASES'))).firstElementChild;
    const phases = this.state.phases;
    phases.length = 0;
    for (const p of list.querySelectorAll('PHASE'))
      phases.push({ id: p.getAttribute('ID'), name: p.getAttribute('NAME'), start: Number(p.getAttribute('START')), end: Number(p.getAttribute('END')) });
    this.state.publish('phases', phases);
    this.render();
  }

  render() {
    // Rebuilt only when something changed: a button under the pointer stays where it is.
    const signature = JSON.stringify([this.state.phases, [...this.state.archived]]);
    if (signature === this.signature) return;
    this.signature = signature;
    const body = $('phase-table').tBodies[0];
    body.replaceChildren();
    for (const p of this.state.phases) {
      const row = body.insertRow();
      row.dataset.phase = p.id;
      cell(row, p.id);
      cell(row, p.name);
      cell(row, p.start);
      cell(row, p.end < 0 ? 'current' : p.end);
      const archive = cell(row, '');
      for (const mi of this.state.archived.get(p.id) || [])
        archive.append(button(`MI ${mi.id} ${mi.metric}`, () => this.histograms.openArchived(mi, p)));
    }
  }
}
