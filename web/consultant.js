// The Performance Consultant's search history graph (SHG), when a search runs: SHG answers
// every node (<SHG><NODE ID PARENT HYPOTHESIS CODE MACHINE SYNCOBJECT STATE ACTIVE VALUE
// THRESHOLD SINCE/>…</SHG>), SHGNODE stream events change one. An engine without the
// Performance Consultant answers SHG with UNKNOWN_COMMAND: the panel then says 'no search'.

import { ProtocolError, dm } from '/protocol.js';

const nodeAttributes = ['ID', 'PARENT', 'HYPOTHESIS', 'CODE', 'MACHINE', 'SYNCOBJECT', 'STATE', 'ACTIVE', 'VALUE', 'THRESHOLD', 'SINCE'];

export class Consultant {
  constructor(connection, stateLine, tree) {
    this.connection = connection;
    this.stateLine = stateLine;
    this.tree = tree;
    this.nodes = new Map();  // id → {attributes}
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
    for (const n of reply.querySelectorAll('NODE')) this.nodes.set(n.getAttribute('ID'), readNode(n));
    this.render(this.nodes.size ? `${this.nodes.size} nodes` : 'no search');
  }

  // A SHGNODE event: one node, new or changed.
  update(event) {
    const node = readNode(event);
    this.nodes.set(node.ID, node);
    this.render(`${this.nodes.size} nodes`);
  }

  render(summary) {
    this.stateLine.textContent = summary;
    this.tree.replaceChildren();
    const children = new Map();
    for (const n of this.nodes.values()) {
      const parent = this.nodes.has(n.PARENT) ? n.PARENT : '';
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(n);
    }
    const build = (parent, container, depth) => {
      for (const n of children.get(parent) || []) {
        const li = document.createElement('li');
        const label = document.createElement('span');
        label.className = `shg-node shg-${(n.STATE || 'never').toLowerCase()}`;
        const focus = [n.CODE, n.MACHINE, n.SYNCOBJECT].filter(Boolean).join(', ');
        label.textContent = `${n.HYPOTHESIS} @ ${focus} — ${n.STATE}` + (n.VALUE ? ` (${n.VALUE} / ${n.THRESHOLD})` : '') + (n.ACTIVE === 'true' ? ' ●' : '');
        label.title = `node ${n.ID}, since ${n.SINCE}`;
        li.append(label);
        if (depth < 64 && children.has(n.ID)) {
          const ul = document.createElement('ul');
          build(n.ID, ul, depth + 1);
          li.append(ul);
        }
        container.append(li);
      }
    };
    build('', this.tree, 0);
  }
}

function readNode(element) {
  const node = {};
  for (const a of nodeAttributes) node[a] = element.getAttribute(a) || '';
  return node;
}
