// The report page (perfdm report): draws the data perfdm wrote into #report-data, with the
// dashboard's chart libraries (Chart.js for bars and lines, d3 for the heatmaps' colours and
// axes) and its style. A classic script: the page is one file, opened without a server.
// One job: what to fix first (the insights, ranked by I/O time at stake), then PyDarshan's
// job summary. Many jobs: what to fix across them, their trends, a row per job.
(function () {
  'use strict';

  const data = JSON.parse(document.getElementById('report-data').textContent);
  const $ = (id) => document.getElementById(id);
  const Chart = globalThis.Chart;
  const d3 = globalThis.d3;
  const blue = '#2e86c1', red = '#c0392b', orange = '#d68910', green = '#229954', grey = '#707b7c';
  const charts = [];

  // Numbers as the insights say them (ioinsights/insight_words.cpp).
  function bytes(n) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let u = 0;
    n = Number(n) || 0;
    while (n >= 1024 && u < units.length - 1) { n /= 1024; u++; }
    if (u === 0) return `${Math.round(n)} B`;
    return `${Math.abs(n - Math.round(n)) < 0.05 ? Math.round(n) : n < 9.95 ? n.toFixed(1) : n.toFixed(0)} ${units[u]}`;
  }
  function seconds(s) {
    s = Number(s) || 0;
    if (s <= 0) return '0 s';
    const short = (v) => (v < 9.95 ? v.toFixed(1) : v.toFixed(0));
    if (s < 0.001) return `${short(s * 1e6)} µs`;
    if (s < 1) return `${short(s * 1e3)} ms`;
    if (s < 3600) return `${short(s)} s`;
    return `${short(s / 3600)} h`;
  }
  function count(n) {
    n = Number(n) || 0;
    if (n >= 999950) return `${(n / 1e6).toFixed(n < 9.95e6 ? 1 : 0)} M`;
    return Math.round(n).toLocaleString('en-US');
  }
  function percent(f) {
    const p = (Number(f) || 0) * 100;
    if (p === 0) return '0 %';
    if (p < 0.05) return '< 0.1 %';
    return p < 0.95 ? `${p.toFixed(1)} %` : `${p.toFixed(0)} %`;
  }
  function date(epoch) {
    if (!epoch) return '–';
    return new Date(epoch * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  }
  const basename = (p) => String(p || '').split('/').filter(Boolean).pop() || String(p || '');
  const exeName = (exe) => basename(String(exe || '').trim().split(/\s+/)[0]) || 'unknown program';

  function el(name, attributes = {}, ...children) {
    const e = document.createElement(name);
    for (const [k, v] of Object.entries(attributes)) {
      if (k === 'text') e.textContent = v;
      else if (k === 'class') e.className = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c) e.append(c);
    return e;
  }

  // A panel of the grid: its title, and what goes in it.
  function panel(title, { wide = false, id } = {}) {
    const p = el('section', { class: wide ? 'panel wide' : 'panel' });
    if (id) p.id = id;
    p.append(el('h2', { text: title }));
    $('panels').append(p);
    return p;
  }

  // A table: head labels, rows of cells (a cell is text, or {text, class}).
  function table(head, rows, numeric = []) {
    const t = el('table');
    const tr = el('tr');
    head.forEach((h, i) => tr.append(el('th', { text: h, class: numeric.includes(i) ? 'num' : '' })));
    t.append(el('thead', {}, tr));
    const body = el('tbody');
    for (const r of rows) {
      const row = el('tr');
      r.forEach((c, i) => {
        const cell = typeof c === 'object' && c !== null ? c : { text: c };
        const td = el('td', { text: String(cell.text), class: [cell.class, numeric.includes(i) ? 'num' : ''].filter(Boolean).join(' ') });
        td.title = String(cell.text);
        row.append(td);
      });
      body.append(row);
    }
    t.append(body);
    return t;
  }

  // A Chart.js chart in `parent`; drawn at once (no animation), marked data-drawn once it is.
  function chart(parent, config, { tall = false, label = '' } = {}) {
    const box = el('div', { class: tall ? 'chart-box tall' : 'chart-box' });
    const canvas = el('canvas', { role: 'img', 'aria-label': label });
    box.append(canvas);
    parent.append(box);
    config.options = Object.assign({ responsive: true, maintainAspectRatio: false, animation: false }, config.options || {});
    config.plugins = [...(config.plugins || []), { id: 'drawn', afterRender: (c) => { c.canvas.dataset.drawn = 'true'; } }];
    charts.push(new Chart(canvas, config));
    return canvas;
  }

  // Tick labels in the page's words: bytes ("4 KiB"), seconds ("12 ms") or counts ("1.2 M").
  const tickFormats = { bytes, seconds, count };

  function bars(parent, labels, datasets, { stacked = false, horizontal = false, yTitle = '', tall = false, label = '', log = false, format = 'count' } = {}) {
    const valueAxis = { stacked, beginAtZero: true, title: { display: !!yTitle, text: yTitle } };
    valueAxis.ticks = { callback: (v) => tickFormats[format](v) };
    if (log) Object.assign(valueAxis, { type: 'logarithmic' });
    return chart(parent, {
      type: 'bar',
      data: { labels, datasets },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        plugins: { legend: { display: datasets.length > 1 } },
        scales: horizontal ? { x: valueAxis, y: { stacked } } : { x: { stacked }, y: valueAxis },
      },
    }, { tall, label });
  }

  // The job line in the header.
  function jobLine(j) {
    const line = $('job-line');
    const add = (k, v) => line.append(el('span', { class: 'job-line' }, el('b', { text: k }), document.createTextNode(v)));
    add('program', exeName(j.exe));
    add('job', String(j.jobid));
    add('processes', count(j.nprocs));
    add('run time', seconds(j.run_time));
    add('started', date(j.start));
    return add;
  }

  // One insight: code, line, evidence (its files), time at stake.
  function insightItem(i, maxSeconds) {
    const li = el('li', { class: `insight level-${i.level}` });
    li.dataset.code = i.code;
    li.dataset.seconds = i.seconds;
    li.append(el('span', { class: 'code', text: i.code, title: i.level }));
    const body = el('div', {}, el('div', { class: 'line', text: i.line }));
    if (i.files && i.files.length) {
      const d = el('details', {}, el('summary', { text: `evidence: ${i.files.length} file${i.files.length > 1 ? 's' : ''}` }));
      const unit = i.unit === 'bytes' ? 'bytes' : i.unit === 'files' ? 'amount' : 'operations';
      d.append(table(['file', unit, 'share of the file', 'time at stake'],
        i.files.map((f) => [{ text: f.file, class: 'file' }, unit === 'bytes' ? bytes(f.count) : unit === 'amount' ? String(+f.count.toPrecision(3)) : count(f.count), percent(f.share), seconds(f.seconds)]), [1, 2, 3]));
      body.append(d);
    }
    li.append(body);
    const stake = el('div', { class: 'stake' });
    if (i.seconds > 0) {
      stake.append(document.createTextNode(`${seconds(i.seconds)} · ${percent(i.share)} of I/O time`));
      const bar = el('div', { class: 'stake-bar' }, el('i'));
      bar.firstChild.style.width = `${Math.max(2, 100 * i.seconds / (maxSeconds || i.seconds))}%`;
      stake.append(bar);
    } else {
      stake.append(document.createTextNode('no time estimate'));
    }
    li.append(stake);
    return li;
  }

  function showInsights(insights, title) {
    const problems = insights.filter((i) => i.level === 'high' || i.level === 'warn');
    const others = insights.filter((i) => !(i.level === 'high' || i.level === 'warn'));
    $('answer-title').textContent = title;
    const max = Math.max(0, ...problems.map((i) => i.seconds));
    for (const i of problems) $('insights').append(insightItem(i, max));
    if (!problems.length) {
      $('no-insights').hidden = false;
      $('no-insights').textContent = 'Nothing to fix: no insight passes Drishti\'s thresholds.';
    }
    if (others.length) {
      $('other-insights').hidden = false;
      for (const i of others) $('facts').append(el('li', { class: `level-${i.level}`, text: `${i.code} ${i.line}` }));
    }
  }

  // A heatmap: bytes per (row of ranks, time bin) in colour, the sum per bin above and per
  // row on the right, as PyDarshan's heatmaps show them.
  function heatmap(parent, h, title) {
    const rows = h.bytes.length, bins = rows ? h.bytes[0].length : 0;
    const wrap = el('div');
    wrap.append(el('h3', { text: title }));
    parent.append(wrap);
    if (!rows || !bins) {
      wrap.append(el('p', { class: 'hint', text: 'no data' }));
      return;
    }
    const width = Math.max(360, Math.min(900, parent.clientWidth - 20 || 600));
    const margin = { left: 56, top: 46, right: 70, bottom: 34 };
    const cellH = Math.max(2, Math.min(40, Math.floor(240 / rows)));
    const plotW = width - margin.left - margin.right, plotH = cellH * rows;
    const height = plotH + margin.top + margin.bottom;
    const box = el('div', { class: 'heatmap-box' });
    box.style.height = `${height}px`;
    box.style.width = `${width}px`;
    wrap.append(box);
    const canvas = el('canvas', { width: plotW, height: plotH, role: 'img', 'aria-label': title });
    canvas.style.left = `${margin.left}px`;
    canvas.style.top = `${margin.top}px`;
    canvas.style.width = `${plotW}px`;
    canvas.style.height = `${plotH}px`;
    box.append(canvas);
    let max = 0;
    for (const r of h.bytes) for (const v of r) max = Math.max(max, v);
    const colour = d3.scaleSequentialLog(d3.interpolateYlOrRd).domain([1, Math.max(2, max)]);
    const ctx = canvas.getContext('2d');
    const cellW = plotW / bins;
    for (let r = 0; r < rows; r++) {
      for (let b = 0; b < bins; b++) {
        const v = h.bytes[r][b];
        if (!(v > 0)) continue;
        ctx.fillStyle = colour(Math.max(1, v));
        ctx.fillRect(b * cellW, r * cellH, Math.ceil(cellW), cellH);
      }
    }
    const svg = d3.select(box).append('svg').attr('width', width).attr('height', height);
    const x = d3.scaleLinear().domain([0, bins * h.bin_width]).range([0, plotW]);
    const y = d3.scaleLinear().domain([0, rows * h.layout.ranks_per_row]).range([0, plotH]);
    svg.append('g').attr('transform', `translate(${margin.left},${margin.top + plotH})`).call(d3.axisBottom(x).ticks(8).tickFormat((t) => `${+t.toPrecision(3)}`));
    svg.append('text').attr('x', margin.left + plotW / 2).attr('y', height - 2).attr('text-anchor', 'middle').attr('font-size', 11).text('time (s)');
    svg.append('g').attr('transform', `translate(${margin.left},${margin.top})`).call(d3.axisLeft(y).ticks(Math.min(rows, 6)).tickFormat(d3.format('d')));
    svg.append('text').attr('transform', `translate(12,${margin.top + plotH / 2}) rotate(-90)`).attr('text-anchor', 'middle').attr('font-size', 11).text('rank');
    // Sums per time bin (top) and per row (right).
    const perBin = h.read_bins.map((r, b) => r + (h.write_bins[b] || 0));
    const binMax = Math.max(1, ...perBin);
    const top = svg.append('g').attr('transform', `translate(${margin.left},4)`);
    perBin.forEach((v, b) => {
      const hgt = 36 * v / binMax;
      if (hgt > 0) top.append('rect').attr('x', b * cellW).attr('y', 36 - hgt).attr('width', Math.max(1, cellW - 0.5)).attr('height', hgt).attr('fill', blue);
    });
    const perRow = h.bytes.map((r) => r.reduce((a, v) => a + v, 0));
    const rowMax = Math.max(1, ...perRow);
    const right = svg.append('g').attr('transform', `translate(${margin.left + plotW + 6},${margin.top})`);
    perRow.forEach((v, r) => {
      const w = 56 * v / rowMax;
      if (w > 0) right.append('rect').attr('x', 0).attr('y', r * cellH).attr('width', w).attr('height', Math.max(1, cellH - 0.5)).attr('fill', blue);
    });
    wrap.append(el('p', { class: 'hint', text: `${bytes(perBin.reduce((a, v) => a + v, 0))} over ${bins} bins of ${seconds(h.bin_width)}; ${h.layout.ranks_per_row > 1 ? `${h.layout.ranks_per_row} ranks per row; ` : ''}colour: bytes per cell (log scale, max ${bytes(max)}); above: per time bin; right: per row` }));
    canvas.dataset.drawn = 'true';
  }

  const sizeLabels = ['0-100', '101-1K', '1K-10K', '10K-100K', '100K-1M', '1M-4M', '4M-10M', '10M-100M', '100M-1G', '1G+'];

  function jobPage() {
    const j = data.job;
    document.title = `${exeName(j.exe)} (${date(j.start).slice(0, 10)}): perfdm report`;
    const add = jobLine(j);
    const h = data.headline;
    add('read', bytes(h.bytes_read));
    add('written', bytes(h.bytes_written));
    add('I/O time', seconds(h.io_time));
    showInsights(data.insights, `What to fix in ${exeName(j.exe)}`);
    for (const n of data.notes || []) $('report-notes').append(el('div', { class: 'error', text: `The log is damaged: ${n}` }));
    const partial = data.modules.filter((m) => m.partial);
    if (partial.length)
      $('report-notes').append(el('div', { class: 'error', text: `Module data incomplete due to runtime memory or record count limits: ${partial.map((m) => m.name).join(', ')}` }));

    // The job and the log (PyDarshan's job and module tables).
    const jobPanel = panel('Job');
    jobPanel.append(table(['', ''], [
      ['Job ID', j.jobid], ['User ID', j.uid], ['# Processes', count(j.nprocs)], ['Run time (s)', j.run_time.toFixed(4)],
      ['Start time', date(j.start)], ['End time', date(j.end)], ['Command line', { text: j.exe, class: 'file' }],
    ]));
    const logPanel = panel('Log');
    logPanel.append(table(['', ''], [
      ['Log filename', { text: basename(j.log), class: 'file' }], ['Runtime library version', j.library || '–'], ['Log format version', j.format],
      ...data.modules.map((m) => [`${m.name} (ver=${m.version}) module data`, m.partial ? { text: `${m.kib.toFixed(2)} KiB — Module data incomplete due to runtime memory or record count limits`, class: 'partial' } : `${m.kib.toFixed(2)} KiB${m.readable ? '' : ' (not read)'}`]),
      ...j.metadata.map(([k, v]) => [`metadata: ${k}`, v]),
    ]));

    const counted = data.modules.filter((m) => m.overview);
    // I/O cost: the average time per process by module, and each process's time.
    const cost = panel('I/O cost per process', { wide: true, id: 'io-cost' });
    const costRow = el('div', { class: 'charts' });
    cost.append(costRow);
    const avg = el('div');
    avg.append(el('h3', { text: 'Average per process, by module' }));
    costRow.append(avg);
    bars(avg, counted.map((m) => m.name), [
      { label: 'Read', data: counted.map((m) => m.cost.read), backgroundColor: blue },
      { label: 'Write', data: counted.map((m) => m.cost.write), backgroundColor: orange },
      { label: 'Metadata', data: counted.map((m) => m.cost.meta), backgroundColor: grey },
    ], { stacked: true, horizontal: true, format: 'seconds', label: 'average I/O time per process by module' });
    const per = el('div');
    const l = data.costs.layout;
    per.append(el('h3', { text: `Each process: POSIX and STDIO time${l.ranks_per_row > 1 ? `, ${l.ranks_per_row} ranks per bar` : ''}` }));
    costRow.append(per);
    const rankLabels = data.costs.read.map((_, r) => l.ranks_per_row > 1 ? `${r * l.ranks_per_row}-${Math.min((r + 1) * l.ranks_per_row, j.nprocs) - 1}` : String(r));
    bars(per, rankLabels, [
      { label: 'Read', data: data.costs.read, backgroundColor: blue },
      { label: 'Write', data: data.costs.write, backgroundColor: orange },
      { label: 'Metadata', data: data.costs.meta, backgroundColor: grey },
    ], { stacked: true, format: 'seconds', label: 'I/O time per process' });

    // Heatmaps (HEATMAP module) and DXT.
    if (data.heatmaps.length || data.dxt.length) {
      const maps = panel('Heat maps: bytes over time and ranks', { wide: true, id: 'heatmaps' });
      for (const hm of data.heatmaps) heatmap(maps, hm, `Heat map: ${hm.name}`);
      for (const d of data.dxt) heatmap(maps, d.heatmap, `Heat map: ${d.module} (from its traces)`);
    }

    // Per module: overview, operation counts, access sizes, common sizes, file counts.
    for (const m of counted) {
      const p = panel(`${m.name}`, { wide: true, id: `module-${m.name}` });
      const o = m.overview;
      const row = el('div', { class: 'charts' });
      p.append(row);
      const left = el('div');
      row.append(left);
      left.append(el('h3', { text: 'Overview' }));
      left.append(table(['', ''], [
        ['files accessed', count(o.files)], ['bytes read', bytes(o.bytes_read)], ['bytes written', bytes(o.bytes_written)],
        ['reads / writes', `${count(o.reads)} / ${count(o.writes)}`],
        ...(o.perf_mib_per_s >= 0 ? [['I/O performance estimate', `${o.perf_mib_per_s.toFixed(2)} MiB/s (slowest rank)`]] : []),
      ]));
      left.append(el('h3', { text: `File count summary (estimated by ${m.name} access offsets)` }));
      const fc = m.file_counts;
      left.append(table(['type', 'number of files', 'avg. size', 'max size'],
        [['total opened', fc.total], ['read-only files', fc.read_only], ['write-only files', fc.write_only], ['read/write files', fc.read_write]]
          .map(([k, v]) => [k, count(v.count), bytes(v.avg_size), bytes(v.max_size)]), [1, 2, 3]));
      if (m.common_sizes) {
        left.append(el('h3', { text: `Most common access sizes${m.common_sizes_approximate ? ' (approximate)' : ''}` }));
        left.append(table(['access size', 'count'], m.common_sizes.map(([s, n]) => [`${count(s)} B`, count(n)]), [0, 1]));
      }
      const right = el('div');
      row.append(right);
      right.append(el('h3', { text: 'Operation counts' }));
      bars(right, m.operations.map((b) => b.label), [{ label: 'operations', data: m.operations.map((b) => b.count), backgroundColor: blue }], { label: `${m.name} operation counts` });
      if (m.sizes) {
        right.append(el('h3', { text: 'Access sizes' }));
        bars(right, sizeLabels, [
          { label: 'Read', data: m.sizes.read, backgroundColor: blue },
          { label: 'Write', data: m.sizes.write, backgroundColor: orange },
        ], { label: `${m.name} access sizes` });
      }
      if (m.pattern) {
        right.append(el('h3', { text: 'Access pattern' }));
        const pt = m.pattern;
        bars(right, ['read', 'write'], [
          { label: 'Total', data: [pt.reads, pt.writes], backgroundColor: blue },
          { label: 'Sequential', data: [pt.seq_reads, pt.seq_writes], backgroundColor: orange },
          { label: 'Consecutive', data: [pt.consec_reads, pt.consec_writes], backgroundColor: green },
        ], { label: 'POSIX access pattern' });
      }
      if (m.top_files.length) {
        p.append(el('h3', { text: 'Files by I/O time' }));
        p.append(table(['file', 'operations', 'bytes', 'I/O time'], m.top_files.map((f) => [{ text: f.file, class: 'file' }, count(f.count), bytes(f.bytes), seconds(f.seconds)]), [1, 2, 3]));
      }
    }

    // Data per file system (POSIX and STDIO).
    if (data.mounts.length) {
      const p = panel('Data access by file system (POSIX and STDIO)', { id: 'mounts' });
      const top = data.mounts.slice(0, 8);
      bars(p, top.map((m) => m.point), [
        { label: 'Read', data: top.map((m) => m.bytes_read), backgroundColor: blue },
        { label: 'Written', data: top.map((m) => m.bytes_written), backgroundColor: orange },
      ], { horizontal: true, stacked: true, format: 'bytes', label: 'bytes per file system' });
      p.append(table(['mount point', 'type', 'read', 'written', 'records'], data.mounts.map((m) => [{ text: m.point, class: 'file' }, m.type, bytes(m.bytes_read), bytes(m.bytes_written), count(m.records)]), [2, 3, 4]));
    }

    // DXT: what was traced.
    for (const d of data.dxt) {
      const p = panel(`${d.module} traces`, { id: `dxt-${d.module}` });
      p.append(table(['', ''], [
        ['records (file, rank)', count(d.records)], ['read segments', count(d.read_segments)], ['write segments', count(d.write_segments)],
        ['bytes read', bytes(d.bytes_read)], ['bytes written', bytes(d.bytes_written)], ['last segment ends at', seconds(d.last_end)],
      ]));
      p.append(el('h3', { text: 'Most traced (file, rank)' }));
      p.append(table(['file', 'rank', 'segments', 'bytes', 'time in calls'], d.top.map((f) => [{ text: f.file, class: 'file' }, f.rank, count(f.segments), bytes(f.bytes), seconds(f.seconds)]), [1, 2, 3, 4]));
    }
  }

  function jobsPage() {
    const jobs = data.jobs.filter((r) => !r.error);
    const exes = [...new Set(jobs.map((r) => exeName(r.job.exe)))];
    document.title = `${exes.join(', ')}: ${data.jobs.length} jobs: perfdm report`;
    const line = $('job-line');
    const add = (k, v) => line.append(el('span', { class: 'job-line' }, el('b', { text: k }), document.createTextNode(v)));
    add('program', exes.join(', ') || '–');
    add('jobs', String(data.jobs.length));
    if (jobs.length) add('from', `${date(jobs[0].job.start)} to ${date(jobs[jobs.length - 1].job.start)}`);
    add('read', bytes(jobs.reduce((a, r) => a + r.bytes_read, 0)));
    add('written', bytes(jobs.reduce((a, r) => a + r.bytes_written, 0)));
    add('I/O time', seconds(jobs.reduce((a, r) => a + r.io_time, 0)));
    const insights = data.insights.map((i) => Object.assign({}, i, {
      line: `in ${i.jobs} of ${jobs.length} jobs; latest: ${i.line}`, share: 0, files: [],
    }));
    showInsights(insights, `What to fix across ${jobs.length} jobs`);
    for (const li of document.querySelectorAll('#insights .stake')) {
      const i = data.insights.find((x) => x.code === li.parentElement.dataset.code);
      li.firstChild.textContent = i.seconds > 0 ? `${seconds(i.seconds)} in all jobs` : 'no time estimate';
    }
    for (const r of data.jobs.filter((x) => x.error)) $('report-notes').append(el('div', { class: 'error', text: `${r.job.log}: ${r.error}` }));

    const labels = jobs.map((r) => `${date(r.job.start).slice(0, 16)} #${r.job.jobid}`);
    const trends = panel('Trends', { wide: true, id: 'trends' });
    const row = el('div', { class: 'charts' });
    trends.append(row);
    const b = el('div', {}, el('h3', { text: 'Bytes per job' }));
    row.append(b);
    bars(b, labels, [
      { label: 'Read', data: jobs.map((r) => r.bytes_read), backgroundColor: blue },
      { label: 'Written', data: jobs.map((r) => r.bytes_written), backgroundColor: orange },
    ], { stacked: true, format: 'bytes', label: 'bytes per job' });
    const t = el('div', {}, el('h3', { text: 'I/O time per job (all processes)' }));
    row.append(t);
    chart(t, {
      type: 'line',
      data: { labels, datasets: [{ label: 'I/O time', data: jobs.map((r) => r.io_time), borderColor: blue, backgroundColor: blue }] },
      options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { callback: (v) => seconds(v) } } } },
    }, { label: 'I/O time per job' });
    const codes = data.insights.filter((i) => i.level === 'high' || i.level === 'warn').map((i) => i.code);
    const palette = [red, orange, blue, green, '#8e44ad', '#16a085', '#7f8c8d', '#d35400', '#2c3e50', '#c71585'];
    const ins = el('div', {}, el('h3', { text: 'Insights per job: time at stake' }));
    row.append(ins);
    bars(ins, labels, codes.map((c, k) => ({
      label: c, backgroundColor: palette[k % palette.length],
      data: jobs.map((r) => { const i = r.insights.find((x) => x.code === c); return i ? Math.max(i.seconds, 0) : 0; }),
    })), { stacked: true, format: 'seconds', label: 'insights per job' });

    const p = panel('Jobs', { wide: true, id: 'jobs' });
    p.append(table(['started', 'job', 'program', 'processes', 'run time', 'read', 'written', 'I/O time', 'files', 'insights', 'log'],
      data.jobs.map((r) => r.error ? [date(0), '–', '–', '–', '–', '–', '–', '–', '–', { text: r.error, class: 'partial' }, { text: basename(r.job.log), class: 'file' }] : [
        date(r.job.start), r.job.jobid, exeName(r.job.exe), count(r.job.nprocs), seconds(r.job.run_time), bytes(r.bytes_read), bytes(r.bytes_written), seconds(r.io_time), count(r.files),
        r.insights.filter((i) => i.level === 'high' || i.level === 'warn').map((i) => i.code).join(' ') + (r.partial ? ' (partial)' : ''),
        { text: basename(r.job.log), class: 'file' }]), [3, 4, 5, 6, 7, 8]));
    if (data.files.length) {
      const f = panel('Files across jobs', { wide: true, id: 'files' });
      f.append(table(['file', 'jobs', 'bytes', 'I/O time'], data.files.map((x) => [{ text: x.file, class: 'file' }, count(x.jobs), bytes(x.bytes), seconds(x.seconds)]), [1, 2, 3]));
    }
  }

  if (data.kind === 'jobs') jobsPage();
  else jobPage();
  $('generator').textContent = `Written by ${data.generator || 'perfdm'}; insights after Drishti's (codes and thresholds), ranked by the I/O time at stake.`;
  document.body.dataset.ready = 'true';
})();
