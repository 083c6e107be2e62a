// The perfdm dashboard: a client of the engine's WebSocket like any other (everything it does,
// a script can do with the same requests). It opens one stream, enables what the user asks,
// and draws what the stream delivers. Each part of the page is a panel (panels/, the contract
// in page.js); they share what they learn through the page's state (state.js). A new panel is
// a file in panels/ and a line below (docs/DASHBOARD.md §4, "Panels").

import { Page } from './page.js';
import { ConsultantPanel } from './panels/consultant.js';
import { FilesPanel } from './panels/files.js';
import { FindingsPanel } from './panels/findings.js';
import { FlamePanel } from './panels/flame.js';
import { HistogramsPanel } from './panels/histograms.js';
import { MetricsPanel } from './panels/metrics.js';
import { PhasesPanel } from './panels/phases.js';
import { ProcessesPanel } from './panels/processes.js';
import { ProfilePanel } from './panels/profile.js';
import { StatusPanel } from './panels/status.js';
import { TimelinePanel } from './panels/timeline.js';
import { Connection } from './protocol.js';

const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
const page = new Page(new Connection(`${scheme}//${location.host}/ws`));
const histograms = new HistogramsPanel(page);

// Started in this order: each may read what those before it learnt.
const panels = [
  new MetricsPanel(page, histograms),
  new ProcessesPanel(page),
  new StatusPanel(page),
  new PhasesPanel(page, histograms),
  new ConsultantPanel(page),
  new FlamePanel(page),
  new TimelinePanel(page),
  histograms,
  new FindingsPanel(page),
  new ProfilePanel(page),
  new FilesPanel(page),
];

page.start(panels).catch(page.showError);
