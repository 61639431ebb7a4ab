// The live view's reducer (src/progress.ts), compiled by `npm run test` and run with node:test.
// tests/unit_tests/test_web_progress.py runs it as part of the Python suite.

import assert from "node:assert/strict";
import { test } from "node:test";
import { apply, emptyProgress } from "./progress.js";

/** The synthesis_progress events of a writer that streams `pieces` (the last one `done`). */
function writing(pieces) {
  let at = 0;
  return pieces.map((piece, n) => {
    at += piece.length;
    const data = { characters: at, text: piece };
    return { type: "synthesis_progress", data: n === pieces.length - 1 ? { ...data, done: true } : data };
  });
}

const feed = (events, p = emptyProgress()) => events.reduce(apply, p);

test("the draft is the pieces in order, and the phase turns to verifying at the last", () => {
  const p = feed(writing(["## Costs\n\n", "Hornsdale cost A$90 million [E1]. ", "It grew."]));
  assert.equal(p.draft, "## Costs\n\nHornsdale cost A$90 million [E1]. It grew.");
  assert.equal(p.written, p.draft.length);
  assert.equal(p.phase, "verifying claims");
});

test("a stream joined again sends events already seen: no text shows twice", () => {
  const events = writing(["First part. ", "Second part. ", "Third part."]);
  const once = feed(events);
  const midway = feed(events.slice(0, 2));
  assert.equal(feed(events, once).draft, once.draft); // replayed after the end
  assert.equal(feed(events, midway).draft, once.draft); // replayed from the start, mid-run
});

test("an event overlapping what was shown adds only what lies beyond it", () => {
  const p = feed([{ type: "synthesis_progress", data: { characters: 10, text: "0123456789" } }]);
  const q = apply(p, { type: "synthesis_progress", data: { characters: 14, text: "6789abcd" } });
  assert.equal(q.draft, "0123456789abcd");
  assert.equal(q.written, 14);
});

test("a long draft keeps its end, and a replay of its beginning adds nothing", () => {
  const pieces = Array.from({ length: 40 }, (_, n) => `Sentence ${n} of a long report. `.repeat(8));
  const events = writing(pieces);
  const p = feed(events);
  assert.ok(p.draftCut);
  assert.ok(p.draft.length <= 6000);
  assert.ok(pieces.join("").endsWith(p.draft));
  assert.equal(feed(events.slice(0, 5), p).draft, p.draft);
});
