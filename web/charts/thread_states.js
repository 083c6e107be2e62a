// The colour of each thread state, wherever the page draws one: a run in the timeline, a
// `[state]` frame on top of an off-CPU flame graph, their legend. One table, so a state looks
// the same in every view.

export const threadStateColours = {
  running: '#e8833a',
  lock: '#c0392b',
  io: '#2e86c1',
  sleep: '#95a5a6',
  other: '#8e44ad',
};

// A state the table does not name (an engine newer than the page).
export function threadStateColour(state) {
  return threadStateColours[state] || '#bbbbbb';
}
