// The page: its one connection to the engine, its state (state.js), its error box, and its
// panels' life. A panel is an object with any of (docs/DASHBOARD.md §4, "Panels"):
//   start()         the first read, once the stream is open (panels start in order, awaited)
//   refresh()       called every `every` ms from then on; with `whileInSight` (an element),
//                   only while that element is on screen and the page is visible
//   event(element)  every stream event but DATA (NEWPHASE, FOLD, SHGNODE, …), parsed
// A panel gets the page in its constructor: `connection`, `state`, `run`, `showError`.

import { $ } from './dom.js';
import { ProtocolError, dm } from './protocol.js';
import { PageState } from './state.js';

export class Page {
  constructor(connection) {
    this.connection = connection;
    this.state = new PageState();
    this.showError = this.showError.bind(this);
    this.run = this.run.bind(this);
  }

  // Every failed request is shown as the protocol reports it: code and reason.
  showError(error) {
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
  async run(xml) {
    try {
      return await this.connection.request(xml);
    } catch (e) {
      this.showError(e);
      throw e;
    }
  }

  // Opens the connection and the page's stream, then starts `panels` in their order and
  // refreshes each on its period. Resolves once every panel has started (body[data-ready]).
  async start(panels) {
    const connection = this.connection;
    connection.onstate = (s, why) => {
      $('st-connection').textContent = s === 'open' ? 'open' : 'closed';
      if (s === 'closed') this.showError(new Error(why));
    };
    connection.onEvent((element) => {
      for (const panel of panels) panel.event?.(element);
    });
    await connection.open();
    const stream = await this.run(dm('STREAM'));
    this.state.stream = stream.firstElementChild.getAttribute('ID');
    for (const panel of panels) await panel.start?.();
    document.body.dataset.ready = 'true';
    for (const panel of panels) if (panel.refresh && panel.every) this.every(panel);
  }

  every(panel) {
    let inSight = !panel.whileInSight;
    if (panel.whileInSight)
      new IntersectionObserver((es) => { for (const e of es) inSight = e.isIntersecting; }).observe(panel.whileInSight);
    setInterval(() => {
      if (panel.whileInSight && (!inSight || document.hidden)) return;
      panel.refresh().catch((e) => { if (this.connection.ws.readyState === WebSocket.OPEN) this.showError(e); });
    }, panel.every);
  }
}
