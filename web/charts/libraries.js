// The chart libraries, all from npm through web/package-lock.json (`npm ci` by
// scripts/setup.sh), served at /lib/<package>/<file> from the package's dist/ (docs/DASHBOARD.md
// §1) and loaded by index.html as classic scripts before the modules:
// - Chart.js 3 (chart.js/dist/chart.min.js): the histograms (histogram.js);
// - d3 7 (d3/dist/d3.min.js) and d3-flame-graph 5 (d3-flame-graph/dist/d3-flamegraph.umd.min.js):
//   the flame graphs (flame.js).
// Classic scripts rather than ES modules: each is one file with no imports, so a page (or a
// report written as one self-contained file) can carry them inline. Read from the globals the
// scripts define; undefined under node's test runner, which imports the pure parts only.

export const Chart = globalThis.Chart;
export const d3 = globalThis.d3;
export const flamegraph = globalThis.flamegraph?.default;
