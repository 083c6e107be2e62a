// A live time-histogram of one metric instance (one of its histograms: GLOBAL, CURRENT, or an
// archived phase's), drawn with Chart.js (libraries.js). Buckets appear as they
// complete (DATA events); a FOLD doubles the width, and the chart is re-read (DATA) so that
// its bins are the engine's; empty buckets (nan) are gaps; phase starts are vertical lines.

import { setText } from '../dom.js';
import { Chart } from './libraries.js';

// Draws the bars (the histogram's `bars`: [{x0, x1, y}] in seconds and the metric's unit), from
// bar `from` on, as one path filled once: Chart.js's own bars cost a save, a path, a fill and a
// restore each, and an options lookup per bar on every update (most of a second's drawing
// with 20 live charts).
function drawBars(chart, h, from = 0) {
  if (h.bars.length <= from) return;
  const { ctx, chartArea, scales } = chart;
  const base = scales.y.getPixelForValue(0);
  ctx.save();
  ctx.beginPath();
  ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height);
  ctx.clip();
  ctx.beginPath();
  for (let i = from; i < h.bars.length; i++) {
    const b = h.bars[i];
    const x0 = scales.x.getPixelForValue(b.x0);
    const x1 = scales.x.getPixelForValue(b.x1);
    const y = scales.y.getPixelForValue(b.y);
    ctx.rect(x0, Math.min(y, base), Math.max(1, x1 - x0), Math.abs(base - y));
  }
  ctx.fillStyle = '#2e86c1';
  ctx.fill();
  ctx.restore();
}

// Draws a dashed line and the phase's name at each phase start inside the chart.
function drawPhaseMarkers(chart, h) {
  const { ctx, chartArea, scales } = chart;
  ctx.save();
  ctx.strokeStyle = '#c0392b';
  ctx.fillStyle = '#c0392b';
  ctx.setLineDash([4, 3]);
  ctx.font = '10px sans-serif';
  for (const p of h.phases) {
    if (p.start < h.start || p.start > h.start + h.values.length * h.width) continue;
    const x = scales.x.getPixelForValue(p.start);
    ctx.beginPath();
    ctx.moveTo(x, chartArea.top);
    ctx.lineTo(x, chartArea.bottom);
    ctx.stroke();
    ctx.fillText(p.name, x + 3, chartArea.top + 10);
  }
  ctx.restore();
}

// Chart.js draws the axes (grid, ticks, labels, titles: text, the costly part of a software
// canvas), then this plugin keeps a copy of them and draws the bars and the phase marks. While
// the axes stay, a redraw is that copy and the bars (Histogram.redraw), not Chart.js's draw.
const histogramLayers = {
  id: 'histogramLayers',
  beforeDatasetsDraw(chart, _args, options) {
    const h = options.histogram;
    if (!h) return;
    const { canvas } = chart;
    h.axesImage ??= document.createElement('canvas');
    const image = h.axesImage;
    if (image.width !== canvas.width || image.height !== canvas.height) {
      image.width = canvas.width;
      image.height = canvas.height;
    }
    const copy = image.getContext('2d');
    copy.clearRect(0, 0, image.width, image.height);
    copy.drawImage(canvas, 0, 0);
    h.axesImageFor = `${canvas.width}x${canvas.height}`;
  },
  afterDatasetsDraw(chart, _args, options) {
    const h = options.histogram;
    if (!h) return;
    drawBars(chart, h);
    drawPhaseMarkers(chart, h);
    h.drawnBars = h.bars;
    h.drawnPhases = h.phaseSignature();
  },
};

// A round step near `x` > 0: 1, 2 or 5 times a power of ten.
function roundStep(x) {
  const p = 10 ** Math.floor(Math.log10(x));
  const m = x / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

// The smallest multiple of `step` at or above `x` (`step` > 0; as a number of steps, so that
// equal inputs give equal outputs).
function roundUp(x, step) {
  return Math.ceil(x / step - 1e-9) * step;
}

export class Histogram {
  // `title`: what the card says; `phases`: [{start, name}] to mark (kept by the caller).
  constructor(container, title, phases) {
    this.start = 0;
    this.width = 0.2;
    this.values = [];   // completed buckets; null = empty (a gap)
    this.bars = [];     // what is drawn: [{x0, x1, y}] (render())
    this.axesImage = null;  // the axes as Chart.js drew them last (histogramLayers)
    this.axesImageFor = '';  // the canvas size it was drawn at
    this.drawnBars = [];   // the bars as drawn last, and the phases marked
    this.drawnPhases = '';
    this.updates = 0;   // Chart.js's updates (the axes moved), and redraws of the bars alone
    this.redraws = 0;
    this.phases = phases;
    this.card = document.createElement('div');
    this.card.className = 'histogram';
    this.card.dataset.completed = '0';
    const head = document.createElement('div');
    head.className = 'histogram-head';
    head.textContent = title;
    this.info = document.createElement('span');
    this.info.className = 'histogram-info';
    head.append(this.info);
    this.actions = document.createElement('span');
    this.actions.className = 'histogram-actions';
    head.append(this.actions);
    const canvasBox = document.createElement('div');
    canvasBox.className = 'histogram-canvas';
    const canvas = document.createElement('canvas');
    canvasBox.append(canvas);
    this.card.append(head, canvasBox);
    container.append(this.card);
    this.chart = new Chart(canvas, {
      type: 'bar',
      // A linear time axis: a category axis of one label per bucket cost most of the drawing
      // (a tick, a grid line and auto-skipping for each of up to 1,000 buckets, 20 charts).
      // Chart.js draws the axes only; the bars are histogramLayers'.
      data: { datasets: [{ data: [] }] },
      options: {
        animation: false,
        parsing: false,
        normalized: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: false }, tooltip: { enabled: false }, histogramLayers: { histogram: this } },
        scales: {
          x: { type: 'linear', grid: { display: false }, ticks: { maxTicksLimit: 8, maxRotation: 0 }, title: { display: true, text: 'seconds' } },
          y: { beginAtZero: true },
        },
      },
      plugins: [histogramLayers],
    });
  }

  // A whole histogram as DATA answers it: <HISTOGRAM START WIDTH LAST>v0 … vn</HISTOGRAM>.
  // `complete`: false for a live histogram, whose last bucket is still filling.
  load(element, complete = false) {
    this.start = Number(element.getAttribute('START'));
    this.width = Number(element.getAttribute('WIDTH'));
    const text = element.textContent.trim();
    const all = text ? text.split(/\s+/).map(v => (v === 'nan' ? null : Number(v))) : [];
    this.values = complete ? all : all.slice(0, Math.max(0, all.length - 1));
    this.render();
  }

  // A completed bucket (DATA event).
  set(bucket, value) {
    while (this.values.length <= bucket) this.values.push(null);
    this.values[bucket] = Number.isNaN(value) ? null : value;
  }

  render() {
    // At most a bar per 2 pixels: more buckets than that are drawn in groups, each bar the
    // mean of its group's buckets with data (as a fold would bin them), so the drawing costs
    // what the eye can see, not what the engine keeps (up to 1,000 buckets).
    const count = Math.max(20, Math.floor((this.chart.chartArea?.width || 400) / 2));
    const group = Math.max(1, Math.ceil(this.values.length / count));
    const drawn = [];
    let low = 0, high = 0;
    for (let i = 0; i < this.values.length; i += group) {
      let sum = 0, n = 0;
      const end = Math.min(i + group, this.values.length);
      for (let j = i; j < end; j++) if (this.values[j] !== null) { sum += this.values[j]; n++; }
      if (!n) continue;
      const y = sum / n;
      drawn.push({ x0: this.start + i * this.width, x1: this.start + end * this.width, y });
      low = Math.min(low, y);
      high = Math.max(high, y);
    }
    this.bars = drawn;
    // Axes that move in steps: the time axis ends at the next multiple of half its length
    // (rounded to 1, 2 or 5), the value axis at the next round value above the highest bar,
    // and shrinks only when the bars fall below half of it (a bar's mean moves a little each
    // second as its group fills). While neither moves, only the bars are drawn again, over the
    // copy of the axes (histogramLayers), without Chart.js's update (scales, ticks, layout) or
    // draw (text): an update costs ten redraws.
    const end = this.start + Math.max(1, this.values.length) * this.width;
    const axes = {
      xMin: this.start,
      xMax: this.start + roundUp(end - this.start, roundStep((end - this.start) / 2)),
      yMin: low < 0 ? -roundUp(-low, roundStep(-low)) : 0,
      yMax: high > 0 ? roundUp(high, roundStep(high / 5)) : 1,
    };
    const old = this.axes;
    if (old && high <= old.yMax && high > old.yMax / 2 && low >= old.yMin && low <= old.yMin / 2)
      Object.assign(axes, { yMin: old.yMin, yMax: old.yMax });
    const same = this.axes && Object.keys(axes).every(k => axes[k] === this.axes[k]);
    const { canvas } = this.chart;
    if (same && this.chart.chartArea && this.axesImageFor === `${canvas.width}x${canvas.height}`) {
      // Only what changed is drawn again: the bars from the first that differs from the
      // drawing (new buckets add bars at the right; a bar's group fills up), all of them when
      // the phases changed.
      let from = 0;
      if (this.phaseSignature() === this.drawnPhases) {
        const was = this.drawnBars;
        while (from < drawn.length && from < was.length && drawn[from].x0 === was[from].x0
               && drawn[from].x1 === was[from].x1 && drawn[from].y === was[from].y) from++;
      }
      if (from < drawn.length || from < this.drawnBars.length) {
        this.redraw(from);
        this.redraws++;
      }
    } else {
      this.axes = axes;
      const { x, y } = this.chart.options.scales;
      Object.assign(x, { min: axes.xMin, max: axes.xMax });
      Object.assign(y, { min: axes.yMin, max: axes.yMax });
      this.chart.update('none');
      this.updates++;
    }
    this.mark();
  }

  // The bars from `from` on drawn again over the copy of the axes: the canvas is restored from
  // that copy from bar `from`'s left edge (less a pixel and a bar, for anti-aliased edges) to
  // its right end, and the bars and phase marks there drawn again, clipped to it.
  redraw(from) {
    const { canvas, ctx, scales } = this.chart;
    const dpr = canvas.width / this.chart.width;
    let left = 0;
    let first = 0;
    if (from > 0) {
      const px = (x) => scales.x.getPixelForValue(x) * dpr;
      const starts = [this.bars[from], this.drawnBars[from]].filter(Boolean).map(b => px(b.x0));
      left = Math.max(0, Math.floor(Math.min(...starts)) - 1);
      first = Math.min(from, this.bars.length);
      const right = (b) => px(b.x0) + Math.max(dpr, px(b.x1) - px(b.x0));
      while (first > 0 && right(this.bars[first - 1]) >= left - 1) first--;
    }
    const width = canvas.width - left;
    ctx.save();
    ctx.resetTransform();
    ctx.clearRect(left, 0, width, canvas.height);
    ctx.drawImage(this.axesImage, left, 0, width, canvas.height, left, 0, width, canvas.height);
    ctx.beginPath();
    ctx.rect(left, 0, width, canvas.height);
    ctx.clip();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawBars(this.chart, this, first);
    drawPhaseMarkers(this.chart, this);
    ctx.restore();
    this.drawnBars = this.bars;
    this.drawnPhases = this.phaseSignature();
  }

  phaseSignature() {
    return this.phases.map(p => `${p.start} ${p.name}`).join('\n');
  }

  // What the card says of its buckets (cheap: no drawing), for a chart out of sight too.
  mark() {
    let filled = 0;
    for (const v of this.values) if (v !== null) filled++;
    const marks = { completed: this.values.length, filled, width: this.width, updates: this.updates, redraws: this.redraws };
    for (const [k, v] of Object.entries(marks))
      if (this.card.dataset[k] !== String(v)) this.card.dataset[k] = String(v);
    setText(this.info, ` ${this.values.length} buckets of ${this.width} s`);
  }

  remove() {
    this.chart.destroy();
    this.card.remove();
  }
}
