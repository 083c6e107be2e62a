// The status line: engine clock and sampling interval (STATUS, SAMPLERATE events), current
// phase, open connections (perfdm_clients of /metrics), frames lost and torn (FRAMES). STATUS
// also says which MIs have archived histograms: published for the phases panel.

import { $, setText } from '../dom.js';
import { dm } from '../protocol.js';

export class StatusPanel {
  constructor(page) {
    this.connection = page.connection;
    this.state = page.state;
    this.every = 1000;
  }

  start() { return this.refresh(); }

  async refresh() {
    const status = (await this.connection.request(dm('STATUS'))).firstElementChild;
    setText($('st-clock'), Number(status.getAttribute('NOW')).toFixed(2));
    setText($('st-interval'), status.getAttribute('SAMPLEINTERVAL'));
    this.state.currentPhase = status.getAttribute('PHASE');
    setText($('st-phase'), this.state.currentPhase);
    const archived = new Map();  // phase id → [mi]
    for (const mi of status.querySelectorAll('MI'))
      for (const p of (mi.getAttribute('ARCHIVED') || '').split(' ').filter(Boolean)) {
        if (!archived.has(p)) archived.set(p, []);
        archived.get(p).push({ id: mi.getAttribute('ID'), metric: mi.getAttribute('METRIC'), focus: mi.getAttribute('FOCUS') });
      }
    this.state.archived = archived;
    this.state.publish('archived', archived);
    const frames = (await this.connection.request(dm('FRAMES'))).firstElementChild;
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

  event(e) {
    if (e.hasAttribute('SAMPLERATE')) setText($('st-interval'), e.getAttribute('INTERVAL'));
  }
}
