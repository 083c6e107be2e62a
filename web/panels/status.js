// The status line: engine clock and sampling interval (STATUS, SAMPLERATE events), current
// phase, open connections (perfdm_clients of /metrics, every 5 s), frames lost and torn
// (FRAMES). STATUS also says which MIs have archived histograms: published for the phases
// panel.

import { $, setText } from '../dom.js';
import { dm } from '../protocol.js';

export class StatusPanel {
  constructor(page) {
    this.connection = page.connection;
    this.state = page.state;
    this.every = 1000;
    this.reads = 0;
  }

  async start() { this.show(await this.read()); }

  // Resolves with what shows the reading: the page runs it with the tick's other drawing.
  async refresh() {
    const reading = await this.read();
    return () => this.show(reading);
  }

  // STATUS and FRAMES asked together; /metrics, an HTTP request of its own for one count that
  // seldom changes, every fifth time.
  async read() {
    const clientsToo = this.reads++ % 5 === 0;
    const [status, frames, metrics] = await Promise.all([
      this.connection.request(dm('STATUS')),
      this.connection.request(dm('FRAMES')),
      clientsToo ? fetch('/metrics').then(r => r.text()) : null,
    ]);
    return { status: status.firstElementChild, frames: frames.firstElementChild, metrics };
  }

  show({ status, frames, metrics }) {
    const archived = new Map();  // phase id → [mi]
    for (const mi of status.querySelectorAll('MI'))
      for (const p of (mi.getAttribute('ARCHIVED') || '').split(' ').filter(Boolean)) {
        if (!archived.has(p)) archived.set(p, []);
        archived.get(p).push({ id: mi.getAttribute('ID'), metric: mi.getAttribute('METRIC'), focus: mi.getAttribute('FOCUS') });
      }
    let lost = 0, torn = 0;
    for (const t of frames.querySelectorAll('FRAMETYPE')) {
      lost += Number(t.getAttribute('LOST'));
      torn += Number(t.getAttribute('TORN'));
    }
    setText($('st-clock'), Number(status.getAttribute('NOW')).toFixed(2));
    setText($('st-interval'), status.getAttribute('SAMPLEINTERVAL'));
    this.state.currentPhase = status.getAttribute('PHASE');
    setText($('st-phase'), this.state.currentPhase);
    setText($('st-lost'), lost);
    setText($('st-torn'), torn);
    // The count of open connections is the engine's own, not a protocol value: /metrics has it.
    const clients = metrics?.match(/^perfdm_clients (\d+)/m);
    if (clients) setText($('st-clients'), clients[1]);
    this.state.archived = archived;
    this.state.publish('archived', archived);
  }

  event(e) {
    if (e.hasAttribute('SAMPLERATE')) setText($('st-interval'), e.getAttribute('INTERVAL'));
  }
}
