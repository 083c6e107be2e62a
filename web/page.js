// The page: its one connection to the engine, its state (state.js), its error box, and its
// panels' life. A panel is an object with any of (docs/DASHBOARD.md §4, "Panels"):
//   start()         the first read, once the stream is open (panels start in order, awaited)
//   refresh()       called every `every` ms from then on (whole seconds: the page has one
//                   timer); with `whileInSight` (an element), only while that element is on
//                   screen and the page is visible, and at once when it comes into sight.
//                   It reads; it may resolve with a function that draws what it read, which
//                   the page runs with the tick's other drawing (see schedule)
//   event(element)  every stream event but DATA (NEWPHASE, FOLD, SHGNODE, …), parsed
// A panel gets the page in its constructor: `connection`, `state`, `run`, `showError`.

import { $ } from './dom.js';
import { ProtocolError, dm } from './protocol.js';
import { PageState } from './state.js';

const tick = 1000;   // ms: the page's one timer
const gather = 500;  // ms: how long a tick's drawing waits for its reads

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
    this.schedule(panels);
  }

  // One timer for every panel, and one drawing a tick: the refreshes due read at once, and
  // what they resolve with (a function that draws what was read) runs together once their
  // reads are in, within `gather` ms; a read that comes later draws when it comes. So what a
  // second changes reaches the screen in one frame: a timer a panel, or a reply drawn when it
  // came, made a frame each (style, layout, paint, the compositor's and the display's work).
  schedule(panels) {
    const drawn = (draw) => { if (typeof draw === 'function') draw(); };
    const periodic = panels.filter(p => p.refresh && p.every).map((panel) => {
      const entry = { panel, ticks: Math.max(1, Math.round(panel.every / tick)), inSight: !panel.whileInSight };
      // A panel read only while in sight is read and drawn at once when it comes into sight.
      if (panel.whileInSight)
        new IntersectionObserver((es) => {
          const was = entry.inSight;
          for (const e of es) entry.inSight = e.isIntersecting;
          if (entry.inSight && !was && !document.hidden) panel.refresh().then(drawn).catch(this.showError);
        }).observe(panel.whileInSight);
      return entry;
    });
    const failed = (e) => { if (this.connection.ws.readyState === WebSocket.OPEN) this.showError(e); };
    let n = 0;
    setInterval(() => {
      n++;
      const draws = [];
      let gathering = true;
      const reads = [];
      for (const { panel, ticks, inSight } of periodic) {
        if (n % ticks || (panel.whileInSight && (!inSight || document.hidden))) continue;
        reads.push(panel.refresh()
          .then((draw) => { if (gathering) draws.push(draw); else drawn(draw); })
          .catch(failed));
      }
      let timer = 0;
      const flush = () => {
        if (!gathering) return;
        gathering = false;
        clearTimeout(timer);
        for (const draw of draws) {
          try { drawn(draw); } catch (e) { failed(e); }
        }
      };
      timer = setTimeout(flush, gather);
      Promise.all(reads).then(flush);
    }, tick);
  }
}
