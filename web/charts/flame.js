// A flame graph of a watched process's stack samples (FLAMEGRAPH, docs/DASHBOARD.md §4), drawn
// by d3-flame-graph with d3 (libraries.js). Each frame is an SVG <g name='function (module)'>
// with a <title> (name, samples, share), so every visible frame's name is in the DOM. Frames
// are inclusive along the call paths.
//
// Live updates keep the zoom: the zoomed frame is remembered as its path of names from the
// root, and re-applied to each new profile (the library keeps zoom in the data it was given,
// as hide/fade flags, so a new profile would otherwise reset it).

import { d3, flamegraph } from './libraries.js';
import { threadStateColour } from './thread_states.js';
import { attributes, startTagAttributes, unescapeXml } from '../xml.js';

const highlightColour = '#e600e6';
const minFrameSize = 2;  // narrower frames are not drawn: the eye cannot tell them apart
const structureEvery = 10000;  // ms: the longest a frame of 2–4 px may wait to appear or go

// The counts of `from` copied into the nodes of `to` on the same call paths (a drawn tree kept
// for a new one that draws alike, or whose frames only move): what hover, titles and the
// layout read stays current.
export function carryCounts(to, from) {
  to.value = from.value;
  to.state = from.state;
  if ('delta' in from) Object.assign(to, { delta: from.delta, before: from.before, after: from.after });
  if (!to.children.length) return;
  // profileTree's nodes keep their children by name (`index`); a differential tree's do not.
  const byName = from.index ?? new Map(from.children.map(c => [c.name, c]));
  for (const c of to.children) {
    const f = byName.get(c.name);
    if (f) carryCounts(c, f); else zeroCounts(c);  // a call path gone from the new tree
  }
}

function zeroCounts(node) {
  node.value = 0;
  if ('delta' in node) Object.assign(node, { delta: 0, before: 0, after: 0 });
  node.children.forEach(zeroCounts);
}

// A FLAMEGRAPH reply's text, read without an XML parser (a reply has up to 20,000 paths and
// comes every second; its form is fixed: docs/FLAME.md §1):
// {attributes of <FLAMEGRAPH>, paths: [{count, state, frames: 'a;b;c'}]}.
export function parseFlameGraph(text) {
  const head = startTagAttributes(text, 'FLAMEGRAPH');
  // The engine writes COUNT then STATE (messages/xml_print_process_reports.cpp): one regular
  // expression reads a path. A reply with a path of another form is read attribute by
  // attribute instead, so that no path is lost.
  const paths = [];
  for (const [, count, state, frames] of text.matchAll(/<PATH COUNT='([^']*)' STATE='([^']*)'>([^<]*)<\/PATH>/g))
    paths.push({ count: Number(count), state, frames: unescapeXml(frames) });
  if (paths.length === countOf(text, '<PATH ')) return { attributes: head, paths };
  paths.length = 0;
  for (const m of text.matchAll(/<PATH ([^>]*)>([^<]*)<\/PATH>/g)) {
    const a = attributes(m[1]);
    paths.push({ count: Number(a.COUNT), state: a.STATE || '', frames: unescapeXml(m[2]) });
  }
  return { attributes: head, paths };
}

function countOf(text, what) {
  let n = 0;
  for (let i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length)) n++;
  return n;
}

// The tree of a parsed FLAMEGRAPH reply: {name, value, children}, inclusive counts. With
// `split`, the state of each path (lock, io, sleep, …) is added as a last frame `[state]`, so
// that an off-CPU view shows what each path waits for on top.
//
// A path shares its first frames with the path before it, mostly (replies list paths in call
// tree order): the nodes of the frames the two texts have in common are the path before's,
// taken without a lookup; only the frames after them are looked up by name (a reply of 6,000
// paths and 10,000 frames is read every second).
export function profileTree(reply, split) {
  const root = { name: 'all', value: 0, children: [], state: '', index: null };
  let before = '';   // the path before's frames text
  const nodes = [];  // the node of each of its frames, and where each frame ends in the text
  const ends = [];
  for (const path of reply.paths) {
    const count = path.count;
    if (!(count > 0)) continue;
    const state = path.state;
    const text = path.frames;
    root.value += count;
    // The frames the texts have in common: up to the first character that differs, each
    // ending where a frame of this text ends too.
    const same = commonLength(text, before);
    let shared = 0;
    while (shared < ends.length && ends[shared] <= same
           && (ends[shared] === text.length || text.charCodeAt(ends[shared]) === 59 /* ; */)) shared++;
    let node = root;
    for (let k = 0; k < shared; k++) {
      node = nodes[k];
      node.value += count;
      if (node.state !== state) node.state = 'mixed';
    }
    nodes.length = ends.length = shared;
    let start = shared ? ends[shared - 1] + 1 : 0;
    while (start < text.length) {
      let end = text.indexOf(';', start);
      if (end < 0) end = text.length;
      if (end > start) {
        node = addChild(node, text.slice(start, end), count, state);
        nodes.push(node);
        ends.push(end);
      }
      start = end + 1;
    }
    before = text;
    if (split && state) addChild(node, `[${state}]`, count, state);
  }
  return root;
}

function commonLength(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

// The child `name` of `node` (made if new), `count` added.
function addChild(node, name, count, state) {
  node.index ??= new Map();
  let child = node.index.get(name);
  if (!child) {
    child = { name, value: 0, children: [], state, index: null };
    node.index.set(name, child);
    node.children.push(child);
  }
  child.value += count;
  if (child.state !== state) child.state = 'mixed';
  return child;
}

// The function part of a frame `function (module)`.
export function functionOf(frame) {
  const i = frame.lastIndexOf(' (');
  return i > 0 && frame.endsWith(')') ? frame.slice(0, i) : frame;
}

// Whether a frame's function is `name` as the search names it (/Code/<module>/<name>): the
// same, or the same inside a namespace or class (`(anonymous namespace)::tokenize`).
export function sameFunction(frameFunction, name) {
  return frameFunction === name || frameFunction.endsWith(`::${name}`);
}

// The differential tree of two profiles (each {tree, total}): every frame's share of its
// side's TOTAL (all thread samples in scope), `value` = both shares added (so a frame that
// vanished stays visible), `delta` = after − before (positive: grew).
export function diffTree(before, after) {
  const scale = 1e6;  // the library wants numbers of samples; shares as parts per million
  const merge = (a, b, name) => {
    const shareA = a ? a.value / before.total : 0;
    const shareB = b ? b.value / after.total : 0;
    const node = { name, value: Math.round((shareA + shareB) * scale), delta: shareB - shareA, before: shareA, after: shareB, children: [], state: (b || a).state };
    const names = new Set([...(a?.children || []).map(c => c.name), ...(b?.children || []).map(c => c.name)]);
    for (const n of names) {
      const child = merge(a?.index?.get(n), b?.index?.get(n), n);
      if (child.value > 0) node.children.push(child);
    }
    return node;
  };
  return merge(before.tree, after.tree, 'all');
}

export class FlameGraph {
  constructor(container, details) {
    this.container = container;
    this.details = details;
    this.zoomPath = [];     // names from the root to the zoomed frame
    this.term = '';         // search box: frames whose name contains it are highlighted
    this.focus = '';        // a finding's function: its frames are highlighted
    this.diff = false;
    this.total = 0;
    this.chart = flamegraph()
      .width(Math.max(400, container.clientWidth - 4))
      .cellHeight(18)
      .minFrameSize(minFrameSize)
      .transitionDuration(0)
      .resetHeightOnZoom(true)  // the height follows each profile's depth, not the first one's
      .selfValue(false)
      .setColorMapper((d) => this.colour(d))
      .setLabelHandler((d) => this.label(d))
      .setDetailsElement(details)
      .onHover((d) => this.retitle(d))
      .onClick((d) => {
        this.zoomPath = d.ancestors().reverse().slice(1).map(n => n.data.name);
        this.unzoomed = false;
        this.mark();
      });
    this.drawn = false;
    this.updates = 0;  // draws by the library; new trees whose frames only moved; drawn alike
    this.moved = 0;
    this.skipped = 0;
    this.unzoomed = true;  // the library's drawing has no zoom (its hide and fade flags unset)
    this.domFrames = new Map();  // the frames the library drew last (look().frames)
    this.structureDrawn = 0;     // when (Date.now())
    this.hidden = new Set();     // drawn frames moveFrames found too narrow: hidden
  }

  // A frame's <title> says its counts as of the library's last draw (show() may keep a drawing
  // and only carry new counts into it): brought up to date when the frame is hovered.
  retitle(d) {
    const g = [...this.container.querySelectorAll('g.frame')].find(e => e.__data__ === d);
    const title = g?.querySelector('title');
    const text = this.label(d);
    if (title && title.textContent !== text) title.textContent = text;
  }

  matches(d) {
    const name = d.data.name;
    if (this.focus && sameFunction(functionOf(name), this.focus)) return true;
    return this.term !== '' && name.toLowerCase().includes(this.term);
  }

  colour(d) {
    if (this.matches(d)) return highlightColour;
    if (this.diff) {
      const x = d.data.delta;
      const strength = Math.min(1, Math.abs(x) / Math.max(1e-9, this.maxDelta));
      const light = Math.round(255 - 160 * strength);
      if (Math.abs(x) < 1e-4) return '#dddddd';
      return x > 0 ? `rgb(255,${light},${light})` : `rgb(${light},${light},255)`;
    }
    if (d.data.name.startsWith('[')) return threadStateColour(d.data.state);
    // Warm hues from the name (stable between updates), as flame graphs usually look.
    let h = 0;
    for (const c of d.data.name) h = (h * 31 + c.charCodeAt(0)) | 0;
    const r = 205 + (Math.abs(h) % 50), g = 80 + (Math.abs(h >> 8) % 120), b = 40 + (Math.abs(h >> 16) % 50);
    return `rgb(${r},${g},${b})`;
  }

  label(d) {
    if (this.diff) {
      const pct = (x) => (100 * x).toFixed(2);
      return `${d.data.name}: ${pct(d.data.before)} % → ${pct(d.data.after)} % of thread time (${d.data.delta >= 0 ? '+' : ''}${pct(d.data.delta)} points)`;
    }
    const share = this.total ? (100 * d.data.value / this.total).toFixed(2) : '0';
    return `${d.data.name}: ${d.data.value} samples, ${share} % of the samples in scope`;
  }

  // Draws `tree` (profileTree or diffTree); `total` is what shares are of (TOTAL).
  // d3-flame-graph's update rewrites every frame it draws (a dozen attributes, transitions,
  // two texts), most of a second's cost with 10,000 nodes, so it runs only when it must:
  // - a new tree that draws the same frames at the same pixels in the same colours is not
  //   drawn: its counts go into the drawn tree, which hover and titles read;
  // - a new tree whose frames of 4 px or more are all drawn already (same call path, same
  //   colour), unzoomed, only moves the drawn frames (moveFrames), and hides those now too
  //   narrow; frames of 2–4 px that appeared wait for the library's next update, at most
  //   `structureEvery` later;
  // - anything else (a new wide frame, a zoom, the differential view) is the library's update.
  show(tree, total, diff = false) {
    this.diff = diff;
    this.total = total;
    if (diff) {
      let max = 0;
      const walk = (n) => { max = Math.max(max, Math.abs(n.delta)); n.children.forEach(walk); };
      tree.children.forEach(walk);
      this.maxDelta = max;
    }
    this.applyZoom(tree);
    const width = Math.max(400, this.container.clientWidth - 4);
    const look = this.look(tree, width);
    if (this.drawn && look.pixels === this.drawnPixels) {
      carryCounts(this.tree, tree);
      this.skipped++;
    } else if (this.drawn && !diff && this.unzoomed && !this.zoomPath.length
               && width === this.chart.width() && Date.now() - this.structureDrawn < structureEvery
               && [...look.frames].every(([key, w]) => w < 4 || this.domFrames.has(key))) {
      carryCounts(this.tree, tree);
      this.moveFrames(width);
      this.drawnPixels = look.pixels;
      this.moved++;
    } else {
      this.chart.width(width);
      if (!this.drawn) {
        d3.select(this.container).datum(tree).call(this.chart);
        this.drawn = true;
      } else {
        this.chart.update(tree);
      }
      for (const g of this.hidden) g.style.display = '';  // the library drew what it keeps
      this.hidden.clear();
      this.tree = tree;
      this.drawnPixels = look.pixels;
      this.domFrames = look.frames;
      this.structureDrawn = Date.now();
      this.unzoomed = !this.zoomPath.length;
      this.updates++;
      this.mark();
    }
    // Attributes written only when they change: each write restyles and repaints.
    const marks = { samples: tree.value, updates: this.updates, moved: this.moved, skipped: this.skipped };
    for (const [k, v] of Object.entries(marks))
      if (this.container.dataset[k] !== String(v)) this.container.dataset[k] = String(v);
  }

  // What the eye sees of `tree` drawn `width` pixels wide: `frames`, each frame wider than the
  // library's minFrameSize by its call path and colour, with its width in pixels; `pixels`,
  // the same with pixel edges, as text (the library lays frames out as here: inclusive values,
  // children in their order, the zoomed frame's subtree across the whole width, its ancestors
  // full width).
  look(tree, width) {
    const head = [width, this.diff, this.zoomPath.join(';')];
    let node = tree;
    for (const name of this.zoomPath) {
      head.push(this.colour({ data: node }));  // an ancestor of the zoomed frame: full width
      node = node.children.find(c => c.name === name);
    }
    const frames = new Map();
    const pixels = [...head];
    const kx = width / Math.max(1e-9, node.value);
    const walk = (n, x, path) => {
      const w = n.value * kx;
      if (w <= minFrameSize) return;
      const key = `${path}\t${this.colour({ data: n })}`;
      frames.set(key, w);
      pixels.push(`${Math.round(x * kx)} ${Math.round((x + n.value) * kx)} ${key}`);
      for (const c of n.children) { walk(c, x, `${path};${c.name}`); x += c.value; }
    };
    walk(node, 0, this.zoomPath.length ? this.zoomPath.join(';') : node.name);
    return { frames, pixels: pixels.join('\n') };
  }

  // The drawn frames moved to the drawn tree's new counts, as the library would lay them out
  // (unzoomed: a node's value is its inclusive count; d3's partition) to whole pixels, writing
  // only what changed: a frame's position, its width, and whether its label shows (35 px).
  moveFrames(width) {
    // d3's partition, down to the frames wide enough to draw only (a tenth of the nodes): each
    // node's children laid side by side from its left edge, by their counts.
    // (The library's nodes get no property of ours: a node shape of its own slows its code.)
    const root = d3.select(this.container).datum();
    const placed = new Set([root]);
    root.value = root.data.value;
    root.x0 = 0;
    root.x1 = root.value;
    const kx = width / Math.max(1e-9, root.value);
    const place = (n) => {
      let x = n.x0;
      for (const child of n.children || []) {
        child.value = child.data.value;
        child.x0 = x;
        child.x1 = x += child.value;
        placed.add(child);
        if (child.value * kx > minFrameSize) place(child);
      }
    };
    place(root);
    const svg = this.container.querySelector('svg');
    const h = Number(svg.getAttribute('height'));
    const c = this.chart.cellHeight();
    for (const g of this.container.querySelectorAll('g.frame')) {
      const d = g.__data__;
      // Now too narrow to draw (the library's next update removes it), or under a frame that
      // is: hidden meanwhile, and left as it is until it is wide enough again.
      const hide = !placed.has(d) || (d.x1 - d.x0) * kx <= minFrameSize;
      if (hide !== this.hidden.has(g)) {
        if (hide) { g.style.display = 'none'; this.hidden.add(g); } else { g.style.display = ''; this.hidden.delete(g); }
      }
      if (hide) continue;
      // Whole pixels: a frame that moves less than one keeps its attributes (each write is a
      // style recalculation, a layout and a paint of the frame).
      const x0 = Math.round(d.x0 * kx);
      const w = Math.round(d.x1 * kx) - x0;
      const transform = `translate(${x0},${h - d.depth * c - c})`;
      if (g.getAttribute('transform') !== transform) g.setAttribute('transform', transform);
      const rect = g.firstElementChild;
      const ws = String(w);
      if (rect.getAttribute('width') !== ws) {
        rect.setAttribute('width', ws);
        g.setAttribute('width', ws);
      }
      // The label: shown from 35 px (as the library draws it), its width written only while shown.
      const label = g.querySelector('foreignObject');
      const div = label?.firstElementChild;
      if (!div) continue;
      const display = w < 35 ? 'none' : 'block';
      if (div.style.display !== display) div.style.display = display;
      if (display === 'block' && label.getAttribute('width') !== ws) label.setAttribute('width', ws);
    }
  }

  // The zoom the user chose, re-applied to a new tree: siblings of the path hidden, its
  // ancestors faded (the library's own flags). A path that no longer exists is cut short.
  applyZoom(tree) {
    let node = tree;
    const kept = [];
    for (const name of this.zoomPath) {
      const child = node.children.find(c => c.name === name);
      if (!child) break;
      for (const c of node.children) if (c !== child) c.hide = true;
      node.fade = true;
      node = child;
      kept.push(name);
    }
    this.zoomPath = kept;
  }

  resetZoom() {
    this.zoomPath = [];
    this.unzoomed = false;  // the library's flags stay in its tree until its next update
    if (this.drawn) this.chart.resetZoom();
  }

  // Highlights frames containing `term` (case-insensitive), as the search box asks.
  search(term) {
    this.term = term.trim().toLowerCase();
    this.redraw();
  }

  // Highlights the frames of function `name` (a finding's), '' for none.
  highlight(name) {
    this.focus = name;
    this.redraw();
  }

  redraw() {
    if (this.drawn) this.chart.update();
    this.mark();
  }

  // Marks on the DOM what a reader (or a test) needs: highlighted frames and the zoom.
  mark() {
    let matched = 0;
    for (const g of this.container.querySelectorAll('g.frame')) {
      const d = g.__data__;
      const on = !!d && this.matches(d);
      if (on) matched++;
      // Attributes touched only when they change: each write costs a style recalculation.
      if (on !== g.hasAttribute('data-highlight')) {
        if (on) g.setAttribute('data-highlight', 'true'); else g.removeAttribute('data-highlight');
      }
      const name = g.getAttribute('name') || '';
      if (g.getAttribute('aria-label') !== name) g.setAttribute('aria-label', name);
    }
    this.container.dataset.highlighted = String(matched);
    this.container.dataset.zoom = this.zoomPath.join(';');
  }
}
