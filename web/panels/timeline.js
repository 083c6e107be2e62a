// Threads over time: TIMELINE every second of the process the flame graph shows
// (state.process), drawn by charts/timeline.js with the phases and the findings marked; a
// chosen finding's thread highlighted. Publishes the threads (the flame graph's thread choice).
// Drawn only while in sight and only when the reply changed: a drawing is an SVG element per
// run (hundreds), so drawing each second out of sight cost most of the page's allocations.
// Out of sight it is read every 5 s, for the threads alone.

import { $ } from '../dom.js';
import { Timeline, parseTimeline } from '../charts/timeline.js';
import { ProtocolError } from '../protocol.js';
import { attr } from '../xml.js';

export class TimelinePanel {
  constructor(page) {
    this.connection = page.connection;
    this.state = page.state;
    this.every = 1000;
    this.unsupported = false;
    this.timeline = new Timeline($('timeline'), $('timeline-legend'));
    this.text = '';        // the last reply
    this.pending = null;   // a reply read out of sight, drawn when the panel comes into sight
    this.inSight = false;
    this.reads = 0;
    new IntersectionObserver((entries) => {
      const was = this.inSight;
      for (const e of entries) this.inSight = e.isIntersecting;
      if (this.inSight && this.pending) { this.timeline.show(this.pending); this.pending = null; }
      if (this.inSight && !was) this.refresh().then((draw) => draw?.()).catch(page.showError);
    }).observe($('timeline-panel'));
    this.state.subscribe('phases', (phases) => this.timeline.setPhases(phases));
    this.state.subscribe('findings', (list) => this.timeline.setFindings(list.map(f => ({ tid: f.tid, since: f.since, text: f.text }))));
    this.state.subscribe('finding', (f) => this.timeline.highlightThread(f.tid));
  }

  start() { return this.refresh().then((draw) => draw?.()); }

  async refresh() {
    const pid = this.state.process;
    if (!pid || this.unsupported || document.hidden) return;
    if (!this.inSight && this.reads++ % 5) return;
    let text;
    try {
      text = await this.connection.requestText(`<DYPER PID='${attr(pid)}' COMMAND='TIMELINE'><TIMELINE/></DYPER>`);
    } catch (e) {
      if (e instanceof ProtocolError && e.code === 'UNKNOWN_COMMAND') this.unsupported = true;
      else if (!(e instanceof ProtocolError && e.code === 'UNKNOWN_TARGET')) throw e;
      return;
    }
    if (text === this.text) return undefined;
    this.text = text;
    const timeline = parseTimeline(text);
    this.state.publish('threads', timeline.threads.map(t => ({ tid: t.tid, name: t.name })));
    if (!this.inSight) { this.pending = timeline; return undefined; }
    return () => { this.timeline.show(timeline); this.pending = null; };
  }
}
