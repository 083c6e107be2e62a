// A live time-histogram of one metric instance (one of its histograms: GLOBAL, CURRENT, or an
// archived phase's), drawn with Chart.js from Debian (/lib/chart.js). Buckets appear as they
// complete (DATA events); a FOLD doubles the width, and the chart is re-read (DATA) so that
// its bins are the engine's; empty buckets (nan) are gaps; phase starts are vertical lines.

import { Chart, registerables } from '/lib/chart.js/chart.esm.js';

Chart.register(...registerables);

// Draws a dashed line and the phase's name at each phase start inside the chart.
const phaseMarkers = {
  id: 'phaseMarkers',
  afterDatasetsDraw(chart, _args, options) {
    const { ctx, chartArea, scales } = chart;
    const h = options.histogram;
    if (!h) return;
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
  },
};

export class Histogram {
  // `title`: what the card says; `phases`: [{start, name}] to mark (kept by the caller).
  constructor(container, title, phases) {
    this.start = 0;
    this.width = 0.2;
    this.values = [];   // completed buckets; null = empty (a gap)
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
      // A linear time axis with {x, y} points as the engine's buckets are (parsing off): a
      // category axis of one label per bucket cost most of the drawing (a tick, a grid line
      // and auto-skipping for each of up to 1,000 buckets, 20 charts).
      data: { datasets: [{ data: [], backgroundColor: '#2e86c1', barPercentage: 1, categoryPercentage: 1 }] },
      options: {
        animation: false,
        parsing: false,
        normalized: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: false }, phaseMarkers: { histogram: this } },
        scales: {
          x: { type: 'linear', grid: { display: false }, ticks: { maxTicksLimit: 8, maxRotation: 0 }, title: { display: true, text: 'seconds' } },
          y: { beginAtZero: true },
        },
      },
      plugins: [phaseMarkers],
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
    const bars = Math.max(20, Math.floor((this.chart.chartArea?.width || 400) / 2));
    const group = Math.max(1, Math.ceil(this.values.length / bars));
    const points = [];
    for (let i = 0; i < this.values.length; i += group) {
      let sum = 0, n = 0;
      for (let j = i; j < Math.min(i + group, this.values.length); j++) if (this.values[j] !== null) { sum += this.values[j]; n++; }
      if (n) points.push({ x: this.start + (i + Math.min(group, this.values.length - i) / 2) * this.width, y: sum / n });
    }
    const x = this.chart.options.scales.x;
    x.min = this.start;
    x.max = this.start + Math.max(1, this.values.length) * this.width;
    this.chart.data.datasets[0].data = points;
    this.chart.update('none');
    this.mark();
  }

  // What the card says of its buckets (cheap: no drawing), for a chart out of sight too.
  mark() {
    const filled = this.values.filter(v => v !== null).length;
    this.card.dataset.completed = String(this.values.length);
    this.card.dataset.filled = String(filled);
    this.card.dataset.width = String(this.width);
    this.info.textContent = ` ${this.values.length} buckets of ${this.width} s`;
  }

  remove() {
    this.chart.destroy();
    this.card.remove();
  }
}
