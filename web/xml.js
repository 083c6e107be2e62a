// The command language's XML as the page reads and writes it (docs/PROTOCOL.md): attribute
// values between single quotes, the five named entities and numeric character references.
// Large replies (FLAMEGRAPH, TIMELINE) and DATA events are read as text with these helpers,
// the rest with the browser's XML parser. No browser API at load time: node's test runner
// imports this module too.

const entities = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };

// An attribute value (or text) escaped: what could end the quotes or start markup.
export function attr(value) {
  return String(value)
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/'/g, '&apos;').replace(/"/g, '&quot;');
}

// Text with its entities and character references replaced by what they stand for.
export function unescapeXml(text) {
  return text.indexOf('&') < 0 ? text
    : text.replace(/&(lt|gt|amp|apos|quot|#x[0-9a-fA-F]+|#\d+);/g, (_, e) => entities[e]
      ?? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1))));
}

// The attributes written in `text` (a start tag, or its inside) as {NAME: value}, unescaped.
export function attributes(text) {
  const out = {};
  for (const [, k, v] of text.matchAll(/(\w+)='([^']*)'/g)) out[k] = unescapeXml(v);
  return out;
}

// The attributes of the first `<name …>` start tag in `text`, as attributes() reads them
// ({} when there is none).
export function startTagAttributes(text, name) {
  const start = text.indexOf(`<${name}`);
  return start < 0 ? {} : attributes(text.slice(start + name.length + 1, text.indexOf('>', start)));
}

let parser;

// The XML of a message as an element (its root), by the browser's parser.
export function parseXml(text) {
  parser ??= new DOMParser();
  return parser.parseFromString(text, 'application/xml').documentElement;
}
