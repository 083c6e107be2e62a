// Processes: PROCESSES every 2 s and on START/END; WATCH or ATTACH a pid; DETACH, UNWATCH.
// Publishes the watched processes (the flame graph, the profile and the first screen's
// histograms follow them), and 'attached' after the form's WATCH or ATTACH (the metrics and
// resources are read again).

import { $, button, cell } from '../dom.js';
import { dm } from '../protocol.js';
import { attr } from '../xml.js';

export class ProcessesPanel {
  constructor(page) {
    this.page = page;
    this.connection = page.connection;
    this.state = page.state;
    this.every = 2000;
    $('process-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const command = e.submitter?.dataset.command || 'WATCH';
      const pid = $('process-pid').value;
      page.run(dm(command, `<PROCESS PID='${attr(pid)}'/>`))
        .then(() => { this.state.publish('attached', pid); return this.refresh(); })
        .catch(() => {});
    });
  }

  start() { return this.refresh(); }

  async refresh() {
    const list = (await this.connection.request(dm('PROCESSES'))).firstElementChild;
    const processes = [...list.querySelectorAll('PROCESS')];
    this.state.watched = processes.filter(p => p.getAttribute('WATCHED') === 'true')
      .map(p => ({ pid: p.getAttribute('PID'), name: p.getAttribute('NAME') }));
    this.state.publish('watched', this.state.watched);
    // The table is rebuilt only when something changed: no layout of the page for nothing.
    const signature = new XMLSerializer().serializeToString(list);
    if (signature === this.signature) return;
    this.signature = signature;
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
        actions.append(button('Detach', () => this.page.run(dm('DETACH', `<PROCESS PID='${pid}'/>`)).then(() => this.refresh())));
      if (isWatched)
        actions.append(button('Unwatch', () => this.page.run(dm('UNWATCH', `<PROCESS PID='${pid}'/>`)).then(() => this.refresh())));
    }
  }

  event(e) {
    if (e.hasAttribute('START') || e.hasAttribute('END')) this.refresh().catch(this.page.showError);
  }
}
