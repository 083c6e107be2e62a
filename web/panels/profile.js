// CPU profile of a watched process: PROFILE every 2 s while the panel is in sight, the 15
// functions with the most inclusive samples (TOTAL) and their exclusive ones (BASE); its
// threads' states from STACKS (state and innermost function).

import { $, cell } from '../dom.js';
import { dm } from '../protocol.js';

export class ProfilePanel {
  constructor(page) {
    this.connection = page.connection;
    this.every = 2000;
    this.whileInSight = $('profile');
    $('profile-refresh').addEventListener('click', () => this.refresh().catch(page.showError));
    page.state.subscribe('watched', (watched) => this.setProcesses(watched));
  }

  // The watched processes ([{pid, name}]) to choose from; the choice is kept while it is one.
  setProcesses(watched) {
    const signature = watched.map(w => `${w.pid} ${w.name}`).join('\n');
    if (signature === this.signature) return;
    this.signature = signature;
    const select = $('profile-pid');
    const chosen = select.value;
    select.replaceChildren(...watched.map(w => new Option(`${w.pid} ${w.name}`, w.pid)));
    if (watched.some(w => w.pid === chosen)) select.value = chosen;
  }

  async refresh() {
    const pid = $('profile-pid').value;
    if (!pid) return;
    const counters = (await this.connection.request(dm('PROFILE', `<PROCESS PID='${pid}'/>`))).firstElementChild;
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
    const threads = (await this.connection.request(dm('STACKS', `<PROCESS PID='${pid}'/>`))).firstElementChild;
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
}
