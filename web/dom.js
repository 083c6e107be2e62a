// Small DOM helpers the panels share.

export const $ = (id) => document.getElementById(id);

// Text written only when it changes: every write lays out and paints the page again (a
// status line rewritten each second with the same values was a repaint a second).
export function setText(element, text) {
  const t = String(text);
  if (element.textContent !== t) element.textContent = t;
}

// A table cell with `text` (also its tooltip, for cells cut short by the style).
export function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  td.title = text;
  row.append(td);
  return td;
}

// A button running `onclick` (async; its failure is shown by the request that failed).
export function button(label, onclick) {
  const b = document.createElement('button');
  b.textContent = label;
  b.type = 'button';
  b.addEventListener('click', () => onclick().catch(() => {}));
  return b;
}

const svgNs = 'http://www.w3.org/2000/svg';

// An SVG element with attributes and optional text.
export function svg(name, attributes = {}, text) {
  const e = document.createElementNS(svgNs, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
