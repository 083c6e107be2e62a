// What the page knows of the engine, shared by its panels, and who wants to hear when part of
// it changes. A panel that learns something others draw sets it here and publishes its topic;
// a panel that draws it subscribes. Panels do not call each other.
//
// Topics (published value in brackets):
// - 'watched'  [[{pid, name}]]  the watched processes (PROCESSES), each time they are read
// - 'attached' [pid]           a process watched or attached from the page
// - 'phases'   [phases]         PHASES read again
// - 'archived' [archived]       STATUS read again (ARCHIVED histograms per phase)
// - 'newphase' [element]        a NEWPHASE event, after 'phases' (histograms read again)
// - 'enabled'  [enabled]        an MI enabled or disabled from the page
// - 'threads'  [[{tid, name}]]  the threads of the process the flame graph shows (TIMELINE)
// - 'shg'      [[node]]         the search history graph's nodes changed
// - 'findings' [[finding]]      the findings read again: {hypothesis, fn, tid, since, text}
// - 'finding'  [finding]        a finding chosen on the page ({fn: '', tid: ''}: none)

export class PageState {
  constructor() {
    this.stream = null;       // the page's stream id (STREAM)
    this.phases = [];         // [{id, name, start, end}] as PHASES says; the same array throughout
    this.currentPhase = '0';  // STATUS's PHASE
    this.archived = new Map();  // phase id → [{id, metric, focus}]: MIs with an archived histogram
    this.metrics = new Map();   // name → style (METRICS, NEWMETRIC)
    this.resources = new Set();  // names (RESOURCES, NEWRESOURCE)
    this.enabled = new Map();   // 'mi:PHASE' → {mi, metric, focus, phase}: this stream's subscriptions
    this.watched = [];          // [{pid, name}]
    this.process = '';          // the pid the flame graph and the timeline show ('' for none)
    this.listeners = new Map();  // topic → [listener]
  }

  subscribe(topic, listener) {
    if (!this.listeners.has(topic)) this.listeners.set(topic, []);
    this.listeners.get(topic).push(listener);
  }

  publish(topic, value) {
    for (const listener of this.listeners.get(topic) || []) listener(value);
  }
}
