// The answer at the top (docs/DASHBOARD.md §4): the search's findings, one line each as
// `perfdm search` prints them (FINDINGS, TEXT), first on the page. Clicking one highlights its
// function in the flame graph and its thread in the timeline. An engine without FINDINGS: the
// findings are worked out from the SHG the same way (true nodes with no true refinement).
// FINDINGS every 2 s and when the SHG changes; publishes the findings and the one chosen.

import { $ } from '../dom.js';
import { ProtocolError, dm } from '../protocol.js';

// The function a /Code focus names (/Code/<module>/<function>), '' for a module or the root.
export function codeFunction(code) {
  const parts = (code || '').split('/');
  return parts.length >= 4 ? readableFunction(parts.slice(3).join('/')) : '';
}

// A function's resource part as a person reads it: %XX decoded (crypto%2Fsha256.block is
// crypto/sha256.block, docs/NATIVE.md §8).
export function readableFunction(part) {
  return part.replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
}

// The thread id a /Machine focus names (/Machine/<host>/<process>{pid}/<thread>{tid}).
export function machineThread(machine) {
  const parts = (machine || '').split('/');
  if (parts.length < 5) return '';
  const m = parts[4].match(/\{(\d+)\}$/);
  return m ? m[1] : '';
}

// What ranks a finding, as FINDINGS ranks them: the node's SCORE (what a fix would save), its
// VALUE where the search gives no score (docs/PROTOCOL.md §12).
function rankOf(n) {
  return n.SCORE !== undefined && n.SCORE !== '' ? Number(n.SCORE) : Number(n.VALUE);
}

// Findings from SHG nodes ({SEARCH, ID, PARENT, STATE, …}): true with no true child.
export function findingsFromNodes(nodes) {
  const trueParents = new Set();
  for (const n of nodes) if (n.STATE === 'true' && n.PARENT !== '') trueParents.add(`${n.SEARCH}:${n.PARENT}`);
  return nodes.filter(n => n.STATE === 'true' && !trueParents.has(`${n.SEARCH}:${n.ID}`))
    .sort((a, b) => rankOf(b) - rankOf(a))
    .map((n) => {
      const fn = codeFunction(n.CODE);
      const since = Number(n.SINCE);
      return {
        hypothesis: n.HYPOTHESIS, fn, tid: machineThread(n.MACHINE), since,
        text: `${n.HYPOTHESIS} ${Math.round(100 * Number(n.VALUE))}% (threshold ${Math.round(100 * Number(n.THRESHOLD))}%) at <${n.CODE}, ${n.MACHINE}, ${n.SYNCOBJECT}>`
          + (since >= 0 ? ` — since ${since.toFixed(1)} s` : ''),
      };
    });
}

export class FindingsPanel {
  constructor(page) {
    this.connection = page.connection;
    this.state = page.state;
    this.every = 2000;
    this.list = $('findings');
    this.engineHasFindings = true;
    this.chosen = '';
    this.findings = [];
    this.nodes = [];  // the SHG's nodes, for an engine without FINDINGS
    this.state.subscribe('shg', (nodes) => { this.nodes = nodes; this.refresh().catch(page.showError); });
  }

  // Reads FINDINGS (or derives them from the SHG's nodes).
  async refresh() {
    const nodes = this.nodes;
    let findings;
    if (this.engineHasFindings) {
      try {
        const reply = (await this.connection.request(dm('FINDINGS'))).firstElementChild;
        findings = [...reply.getElementsByTagName('FINDING')].map(f => ({
          hypothesis: f.getAttribute('HYPOTHESIS'),
          fn: (f.getAttribute('FUNCTION') || '').replace(/ \([^()]*\)$/, '') || codeFunction(f.getAttribute('CODE')),
          tid: f.getAttribute('TID') || machineThread(f.getAttribute('MACHINE')),
          since: Number(f.getAttribute('SINCE') ?? -1),
          text: f.getAttribute('TEXT'),
        }));
      } catch (e) {
        if (!(e instanceof ProtocolError && e.code === 'UNKNOWN_COMMAND')) throw e;
        this.engineHasFindings = false;
      }
    }
    if (!this.engineHasFindings) findings = findingsFromNodes(nodes);
    this.render(findings);
    this.state.publish('findings', findings);
  }

  render(findings) {
    const signature = JSON.stringify(findings);
    if (signature === this.signature) return;
    this.signature = signature;
    this.findings = findings;
    this.list.replaceChildren(...findings.map((f, i) => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'finding';
      b.textContent = f.text;
      b.dataset.function = f.fn;
      b.dataset.tid = f.tid;
      b.dataset.rank = String(i + 1);
      if (`${f.fn}|${f.tid}` === this.chosen) b.classList.add('chosen');
      b.addEventListener('click', () => this.choose(f, b));
      li.append(b);
      return li;
    }));
    this.list.closest('section').hidden = findings.length === 0;
  }

  choose(f, button) {
    const key = `${f.fn}|${f.tid}`;
    const again = key === this.chosen;
    this.chosen = again ? '' : key;
    for (const b of this.list.querySelectorAll('.finding')) b.classList.remove('chosen');
    if (!again) button.classList.add('chosen');
    this.state.publish('finding', again ? { fn: '', tid: '' } : f);
  }
}
