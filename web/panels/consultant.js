// The Performance Consultant's search history graph (SHG), when a search runs (docs/PROTOCOL.md
// §12): SHG answers every search's nodes (<SHG><NODE SEARCH ID PARENT HYPOTHESIS CODE MACHINE
// SYNCOBJECT FILE STATE ACTIVE VALUE THRESHOLD SINCE/>…</SHG>), SHGNODE stream events change one.
// Node ids count per search, so a node is keyed by search and id, and PARENT names a node of
// the same search. An engine without the Performance Consultant answers SHG with
// UNKNOWN_COMMAND: the panel then says 'no search'. Publishes the nodes when they change (the
// findings follow them).
//
// The search form sends SEARCH START with the tunables filled in, none by default: as `perfdm
// search` does, a node then concludes on the evidence (its confidence interval clears the
// threshold at CONFIDENCE, 0.99), and SUFFICIENT_TIME chooses Paradyn's fixed wait instead.

import { $ } from '../dom.js';
import { ProtocolError, dm } from '../protocol.js';
import { attr } from '../xml.js';

const nodeAttributes = ['SEARCH', 'ID', 'PARENT', 'HYPOTHESIS', 'CODE', 'MACHINE', 'SYNCOBJECT', 'FILE', 'STATE', 'ACTIVE', 'VALUE', 'THRESHOLD', 'SINCE'];
const states = ['true', 'unknown', 'false', 'never'];  // the order siblings are listed in

export class ConsultantPanel {
  constructor(page) {
    this.connection = page.connection;
    this.state = page.state;
    this.every = 3000;
    this.stateLine = $('shg-state');
    this.tree = $('shg-tree');
    this.nodes = new Map();  // 'search:id' → {attributes}
    this.renderPending = false;
    this.opened = new Map();  // node key → open, as the user left it
    $('search-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const action = e.submitter?.dataset.action || 'START';
      const tunables = action !== 'START' ? {}
        : { SUFFICIENT_TIME: $('search-sufficient-time').value, CONFIDENCE: $('search-confidence').value };
      try {
        const search = await this.search(action, $('search-phase').value, tunables);
        $('search-state').textContent = `search ${search.getAttribute('ID')} (${search.getAttribute('PHASE')}`
          + (search.getAttribute('PHASE') === 'CURRENT' ? ` of phase ${search.getAttribute('PHASEID')}` : '')
          + `): ${search.getAttribute('STATE')}`
          + (search.getAttribute('COSTLIMITED') === 'true' ? ' — search slowed: cost limit reached' : '');
      } catch (error) {
        page.showError(error);
      }
    });
  }

  start() { return this.refresh(); }

  event(e) {
    if (e.hasAttribute('SHGNODE')) this.update(e);
  }

  // SEARCH with ACTION (START, PAUSE, RESUME, STOP) for PHASE (GLOBAL, CURRENT) and the
  // `tunables` given ({NAME: value}; empty values left out). Resolves with the reply's
  // <SEARCH/>; rejects as the protocol reports (NOT_ALLOWED, BAD_ARGUMENT, UNKNOWN_COMMAND).
  async search(action, phase, tunables = {}) {
    const given = Object.entries(tunables).filter(([, v]) => v !== '' && v !== undefined)
      .map(([k, v]) => ` ${k}='${attr(v)}'`).join('');
    const reply = await this.connection.request(dm('SEARCH', `<SEARCH PHASE='${attr(phase)}' ACTION='${attr(action)}'${given}/>`));
    await this.refresh();
    return reply.firstElementChild;
  }

  async refresh() {
    let reply;
    try {
      reply = await this.connection.request(dm('SHG'));
    } catch (e) {
      if (e instanceof ProtocolError && (e.code === 'UNKNOWN_COMMAND' || e.code === 'UNKNOWN_HANDLE')) {
        this.nodes.clear();
        this.render(e.code === 'UNKNOWN_COMMAND' ? 'no search (this engine has no Performance Consultant)' : 'no search');
        return;
      }
      throw e;
    }
    this.nodes.clear();
    for (const n of reply.querySelectorAll('NODE')) this.add(readNode(n));
    this.renderSoon();
  }

  // A SHGNODE event: one node, new or changed.
  update(event) {
    this.add(readNode(event));
    this.renderSoon();
  }

  add(node) {
    this.nodes.set(key(node.SEARCH, node.ID), node);
  }

  // Events come in bursts (a refinement makes many nodes): draw at most 4 times a second.
  renderSoon() {
    if (this.renderPending) return;
    this.renderPending = true;
    setTimeout(() => {
      this.renderPending = false;
      if (this.render()) this.state.publish('shg', [...this.nodes.values()]);
    }, 250);
  }

  summary() {
    if (!this.nodes.size) return 'no search';
    const count = Object.fromEntries(states.map((s) => [s, 0]));
    for (const n of this.nodes.values()) count[n.STATE] = (count[n.STATE] || 0) + 1;
    return `${this.nodes.size} nodes: ` + states.map((s) => `${count[s]} ${s}`).join(', ');
  }

  // Draws the nodes, only when they or `summary` changed (SHG is read every 3 s, and a tree
  // drawn again is a layout and a paint of the page); says whether it drew.
  render(summary = this.summary()) {
    const signature = JSON.stringify([summary, [...this.nodes.values()]]);
    if (signature === this.signature) return false;
    this.signature = signature;
    this.stateLine.textContent = summary;
    this.tree.replaceChildren();
    const children = new Map();  // parent key ('' for the top) → nodes
    for (const n of this.nodes.values()) {
      const parentKey = n.PARENT !== '' && this.nodes.has(key(n.SEARCH, n.PARENT)) ? key(n.SEARCH, n.PARENT) : '';
      if (!children.has(parentKey)) children.set(parentKey, []);
      children.get(parentKey).push(n);
    }
    const rank = (n) => { const r = states.indexOf(n.STATE); return r < 0 ? states.length : r; };
    for (const list of children.values())
      list.sort((a, b) => Number(a.SEARCH) - Number(b.SEARCH) || rank(a) - rank(b) || Number(a.ID) - Number(b.ID));
    // A node with refinements is a <details>: open unless it concluded false (or never
    // ran), so the false subtrees are folded away; what the user opens or closes stays so.
    const build = (parentKey, container, depth) => {
      for (const n of children.get(parentKey) || []) {
        const li = document.createElement('li');
        const label = document.createElement('span');
        const state = states.includes(n.STATE) ? n.STATE : 'never';
        const nodeKey = key(n.SEARCH, n.ID);
        label.className = `shg-node shg-${state}`;
        label.dataset.state = state;
        label.dataset.hypothesis = n.HYPOTHESIS;
        label.dataset.node = nodeKey;
        label.textContent = `${n.HYPOTHESIS} @ <${n.CODE}, ${n.MACHINE}, ${n.SYNCOBJECT}${n.FILE && n.FILE !== '/File' ? ', ' + n.FILE : ''}> — ${n.STATE}`
          + (n.VALUE ? ` (${formatNumber(n.VALUE)} / ${formatNumber(n.THRESHOLD)})` : '')
          + (n.ACTIVE === 'true' ? ' ●' : '');
        label.title = `search ${n.SEARCH}, node ${n.ID}` + (Number(n.SINCE) >= 0 ? `, true since ${n.SINCE} s` : '')
          + (n.ACTIVE === 'true' ? ', active' : ', inactive');
        if (depth < 64 && children.has(nodeKey)) {
          const details = document.createElement('details');
          details.open = this.opened.has(nodeKey) ? this.opened.get(nodeKey) : (state === 'true' || state === 'unknown');
          details.addEventListener('toggle', () => this.opened.set(nodeKey, details.open));
          const summary = document.createElement('summary');
          summary.append(label);
          label.title += `, ${children.get(nodeKey).length} refinements`;
          const ul = document.createElement('ul');
          build(nodeKey, ul, depth + 1);
          details.append(summary, ul);
          li.append(details);
        } else {
          li.append(label);
        }
        container.append(li);
      }
    };
    build('', this.tree, 0);
    return true;
  }
}

function key(search, id) {
  return `${search}:${id}`;
}

function formatNumber(text) {
  const x = Number(text);
  return Number.isFinite(x) ? String(Number(x.toPrecision(3))) : text;
}

function readNode(element) {
  const node = {};
  for (const a of nodeAttributes) node[a] = element.getAttribute(a) || '';
  return node;
}
