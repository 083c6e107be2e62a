// The dashboard's client of the XML command language over the WebSocket /ws: one request,
// reply or stream event per frame, exactly as the TCP gateway's (docs/PROTOCOL.md §8). The
// engine answers each request once, in order, so replies are matched to requests by order.

import { parseXml } from './xml.js';

// A value of a DATA event, its attributes in the order the engine writes them
// (messages/xml_print.cpp).
const dataValue = /<V MI='([^']*)' PHASE='([^']*)' BUCKET='([^']*)' VALUE='([^']*)'\/>/g;

// A request to the data manager: COMMAND with an optional argument element.
export function dm(command, argument = '') {
  return argument
    ? `<DYPER PID='DM' COMMAND='${command}'>${argument}</DYPER>`
    : `<DYPER PID='DM' COMMAND='${command}'/>`;
}

// An error reply: <DYPER_REPLY ID ERROR='CODE'>reason</DYPER_REPLY>.
export class ProtocolError extends Error {
  constructor(code, reason, request) {
    super(`${code}: ${reason}`);
    this.code = code;
    this.reason = reason;
    this.request = request;
  }
}

export class Connection {
  constructor(url) {
    this.url = url;
    this.pending = [];          // [{resolve, reject, request}] in request order
    this.listeners = new Set(); // (element, text) for every stream event
    this.dataListeners = new Set(); // ([{mi, phase, bucket, value}]) for DATA events
    this.onstate = () => {};    // ('open' | 'closed', detail)
  }

  open() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      this.ws = ws;
      ws.onopen = () => { this.onstate('open'); resolve(); };
      ws.onerror = () => reject(new Error(`cannot connect to ${this.url}`));
      ws.onclose = (e) => {
        const why = `connection closed (${e.code}${e.reason ? ': ' + e.reason : ''})`;
        for (const p of this.pending) p.reject(new Error(why));
        this.pending = [];
        this.onstate('closed', why);
      };
      ws.onmessage = (e) => this.receive(e.data);
    });
  }

  receive(text) {
    if (this.pending.length && this.pending[0].raw && text.startsWith('<DYPER_REPLY')) {
      // A reply asked for as text (large ones: FLAMEGRAPH, TIMELINE): no XML parse here.
      const p = this.pending.shift();
      const head = text.slice(0, text.indexOf('>') + 1);
      const code = head.match(/ ERROR='([^']*)'/);
      if (code) p.reject(new ProtocolError(code[1], parseXml(text).textContent, p.request));
      else p.resolve(text);
      return;
    }
    // DATA events (up to 50 values each, 1,000 values a second with 20 live histograms): read
    // without an XML parser (their form is fixed: <DYPER DATA='s'><V MI PHASE BUCKET VALUE/>…</DYPER>).
    if (this.dataListeners.size && text.startsWith('<DYPER DATA=')) {
      const values = [];
      for (const [, mi, phase, bucket, value] of text.matchAll(dataValue))
        values.push({ mi, phase, bucket: Number(bucket), value: Number(value) });
      for (const listener of this.dataListeners) listener(values);
      return;
    }
    const element = parseXml(text);
    if (element.nodeName === 'DYPER_REPLY') {
      const p = this.pending.shift();
      if (!p) return;
      const code = element.getAttribute('ERROR');
      if (code) p.reject(new ProtocolError(code, element.textContent, p.request));
      else p.resolve(element);
      return;
    }
    for (const listener of this.listeners) listener(element, text);
  }

  // Sends `xml`; resolves with the reply's text (not parsed), rejects with a ProtocolError.
  requestText(xml) { return this.request(xml, true); }

  // Sends `xml`; resolves with the reply element, rejects with a ProtocolError.
  request(xml, raw = false) {
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject(new Error('not connected'));
        return;
      }
      this.pending.push({ resolve, reject, request: xml, raw });
      this.ws.send(xml);
    });
  }

  onEvent(listener) { this.listeners.add(listener); }
  onData(listener) { this.dataListeners.add(listener); }
}
