// The flame graph panel: which process, view (on-CPU, off-CPU split by lock / I/O / sleep, one
// state), thread and scope (current phase or an earlier one, optionally a time range) to ask
// FLAMEGRAPH for, about every second; and the differential view between two phases or two time
// ranges of one phase (docs/DASHBOARD.md §4). A chosen finding's function is highlighted, in
// the view of what its hypothesis is about. The chosen process is state.process (the
// timeline shows it too).

import { FlameGraph, diffTree, parseFlameGraph, profileTree } from '../charts/flame.js';
import { $, setText } from '../dom.js';
import { ProtocolError } from '../protocol.js';
import { attr } from '../xml.js';

// The view a finding is shown in: what its hypothesis is about (CPU, lock waits, I/O waits).
const hypothesisViews = { CPUbound: 'cpu', ExcessiveSyncWaitingTime: 'lock', ExcessiveIOBlockingTime: 'io', TooManySmallIOOps: 'io' };

function flameRequest(pid, view, thread, phase, from, to) {
  let a = `VIEW='${attr(view)}' PHASE='${attr(phase || 'CURRENT')}'`;
  if (thread) a += ` THREAD='${attr(thread)}'`;
  if (from !== '' && from !== undefined) a += ` FROM='${attr(from)}'`;
  if (to !== '' && to !== undefined) a += ` TO='${attr(to)}'`;
  return `<DYPER PID='${attr(pid)}' COMMAND='FLAMEGRAPH'><FLAMEGRAPH ${a}/></DYPER>`;
}

export class FlamePanel {
  constructor(page) {
    this.connection = page.connection;
    this.state = page.state;
    this.every = 1000;
    this.whileInSight = $('flame');  // read and drawn only while on screen
    this.graph = new FlameGraph($('flame-graph'), $('flame-details'));
    this.signature = '';
    this.busy = false;
    this.unsupported = false;
    for (const id of ['flame-pid', 'flame-view', 'flame-thread', 'flame-phase', 'flame-from', 'flame-to',
      'diff-on', 'diff-phase-a', 'diff-from-a', 'diff-to-a', 'diff-phase-b', 'diff-from-b', 'diff-to-b'])
      $(id).addEventListener('change', () => { this.signature = ''; this.state.process = this.pid(); this.update(); });
    $('flame-search').addEventListener('input', (e) => this.graph.search(e.target.value));
    $('flame-reset').addEventListener('click', () => this.graph.resetZoom());
    this.state.subscribe('watched', (watched) => this.setProcesses(watched));
    this.state.subscribe('phases', (phases) => this.setPhases(phases));
    this.state.subscribe('threads', (threads) => this.setThreads(threads));
    this.state.subscribe('finding', (f) => this.showFinding(f));
  }

  start() { return this.update(); }

  // The watched processes ([{pid, name}]); the first is chosen when none is.
  setProcesses(watched) {
    const select = $('flame-pid');
    const chosen = select.value;
    const signature = watched.map(w => w.pid).join(' ');
    if (signature === this.processSignature) return;
    this.processSignature = signature;
    select.replaceChildren(...watched.map(w => new Option(`${w.pid} ${w.name}`, w.pid)));
    if (watched.some(w => w.pid === chosen)) select.value = chosen;
    this.state.process = this.pid();
    this.signature = '';
    this.update();
  }

  // The phases (PHASES) for the scope and the comparison.
  setPhases(phases) {
    const signature = phases.map(p => `${p.id}:${p.name}`).join(' ');
    if (signature === this.phaseSignature) return;
    this.phaseSignature = signature;
    const fill = (select, withCurrent) => {
      const chosen = select.value;
      const options = phases.map(p => new Option(`${p.id} ${p.name}${p.end < 0 ? ' (current)' : ''}`, p.id));
      if (withCurrent) options.unshift(new Option('current phase', 'CURRENT'));
      select.replaceChildren(...options);
      if ([...select.options].some(o => o.value === chosen)) select.value = chosen;
    };
    fill($('flame-phase'), true);
    fill($('diff-phase-a'), true);
    fill($('diff-phase-b'), true);
    // By default the comparison is the first phase against the current one.
    if (!this.diffChosen && phases.length > 1) {
      $('diff-phase-a').value = phases[0].id;
      $('diff-phase-b').value = 'CURRENT';
    }
  }

  // The threads (TIMELINE's) for the thread selector: [{tid, name}].
  setThreads(threads) {
    const signature = threads.map(t => `${t.tid}:${t.name}`).join(' ');
    if (signature === this.threadSignature) return;
    this.threadSignature = signature;
    const select = $('flame-thread');
    const chosen = select.value;
    select.replaceChildren(new Option('all threads', ''), ...threads.map(t => new Option(`${t.tid} ${t.name}`, t.tid)));
    if ([...select.options].some(o => o.value === chosen)) select.value = chosen;
  }

  // A finding chosen ({hypothesis, fn}; fn '' for none): its function lit, in the view of what
  // its hypothesis is about unless the differential view is on.
  showFinding(f) {
    const view = hypothesisViews[f.hypothesis];
    if (f.fn && view && $('flame-view').value !== view && !$('diff-on').checked) {
      $('flame-view').value = view;
      $('flame-view').dispatchEvent(new Event('change'));
    }
    this.graph.highlight(f.fn);
  }

  pid() { return $('flame-pid').value; }

  // Reads and draws at once (a choice on the panel, a process watched).
  update() {
    return this.refresh().then((draw) => draw?.());
  }

  // Reads FLAMEGRAPH; resolves with what draws it (nothing when nothing is new), which the
  // page runs with the tick's other drawing.
  async refresh() {
    const pid = this.pid();
    // A hidden page draws nothing: the next second after it shows again catches up.
    if (!pid || this.busy || this.unsupported || document.hidden) return undefined;
    this.busy = true;
    try {
      return $('diff-on').checked ? await this.readDiff(pid) : await this.readProfile(pid);
    } catch (e) {
      if (e instanceof ProtocolError && e.code === 'UNKNOWN_COMMAND') {
        this.unsupported = true;
        $('flame-summary').textContent = 'this engine has no FLAMEGRAPH';
      } else if (e instanceof ProtocolError) {
        $('flame-summary').textContent = `${e.code}: ${e.reason}`;
      } else throw e;
    } finally {
      this.busy = false;
    }
    return undefined;
  }

  async readProfile(pid) {
    const view = $('flame-view').value;
    const reply = parseFlameGraph(await this.connection.requestText(flameRequest(pid, view, $('flame-thread').value,
      $('flame-phase').value, $('flame-from').value, $('flame-to').value)));
    const a = reply.attributes;
    const signature = [view, a.PHASE, a.SAMPLES, a.TOTAL, reply.paths.length, $('flame-thread').value].join(' ');
    // Nothing new (an earlier phase, a process that stopped): nothing to draw.
    if (signature === this.signature) return undefined;
    this.signature = signature;
    const split = view === 'offcpu' || view === 'all';
    const tree = profileTree(reply, split);
    const total = Number(a.TOTAL);
    const samples = Number(a.SAMPLES);
    return () => {
      this.graph.show(tree, samples);
      const truncated = a.TRUNCATED;
      setText($('flame-summary'), `${samples} samples of ${total} in phase ${a.PHASE}`
        + ` (${total ? (100 * samples / total).toFixed(1) : 0} % of all thread samples)`
        + (truncated ? `; ${truncated} rare paths merged into their callers` : ''));
      $('flame-graph').dataset.view = view;
      $('flame-graph').dataset.mode = 'profile';
    };
  }

  async readDiff(pid) {
    this.diffChosen = true;
    const view = $('flame-view').value;
    const thread = $('flame-thread').value;
    const [a, b] = await Promise.all([
      this.connection.requestText(flameRequest(pid, view, thread, $('diff-phase-a').value, $('diff-from-a').value, $('diff-to-a').value)),
      this.connection.requestText(flameRequest(pid, view, thread, $('diff-phase-b').value, $('diff-from-b').value, $('diff-to-b').value)),
    ]).then(rs => rs.map(parseFlameGraph));
    const signature = ['diff', view, thread, ...[a, b].flatMap(r => [r.attributes.PHASE, r.attributes.SAMPLES, r.attributes.TOTAL, r.paths.length])].join(' ');
    if (signature === this.signature) return undefined;
    this.signature = signature;
    const split = view !== 'cpu';
    const side = (r) => ({ tree: profileTree(r, split), total: Math.max(1, Number(r.attributes.TOTAL)) });
    const tree = diffTree(side(a), side(b));
    const describe = ({ attributes: r }) => `phase ${r.PHASE}` + (r.FROM ? ` ${Number(r.FROM).toFixed(1)}–${Number(r.TO).toFixed(1)} s` : '')
      + ` (${r.TOTAL} thread samples)`;
    return () => {
      this.graph.show(tree, tree.value, true);
      setText($('flame-summary'), `${describe(a)} → ${describe(b)}: each frame's share of its side's thread samples; `
        + 'width: both shares added; red grew, blue shrank');
      $('flame-graph').dataset.view = view;
      $('flame-graph').dataset.mode = 'diff';
    };
  }
}
