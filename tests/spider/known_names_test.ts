/** Names read off a page in place (src/spider/known_names.ts): the answer toLowerCase() of the slice gives, or none. */
import assert from "node:assert/strict";
import { KNOWN_ATTRIBUTES, KNOWN_TAGS, KnownNames } from "../../src/spider/known_names.ts";
import { seededRandom } from "../helpers/seeded_random.ts";

const NAMES = ["a", "div", "h1", "annotation-xml", "aria-label", "foreignobject", "data-src"];

Deno.test("a kept name is found in any case, as the one shared string, wherever it sits in the text", () => {
  const names = new KnownNames(NAMES);
  for (const name of NAMES) {
    for (const spelled of [name, name.toUpperCase(), [...name].map((c, i) => i % 2 ? c.toUpperCase() : c).join("")]) {
      const text = `<${spelled} x>`;
      const found = names.find(text, 1, 1 + spelled.length);
      assert.equal(found, name);
      assert.equal(found, text.slice(1, 1 + spelled.length).toLowerCase());
    }
  }
});

Deno.test("a name that is not kept, or only nearly, is not found", () => {
  const names = new KnownNames(NAMES);
  for (
    const text of ["", "di", "divv", "dib", "h2", "h", "aria-labe", "annotation-xmL!", "d1v", "\u212Aa", "a\u0130"]
  ) {
    assert.equal(names.find(text, 0, text.length), undefined, JSON.stringify(text));
  }
  // A kept name inside a longer one is not it.
  assert.equal(names.find("xdivx", 0, 5), undefined);
  assert.equal(names.find("xdivx", 1, 4), "div");
});

Deno.test("on random names, what is found is what toLowerCase() of the slice gives", () => {
  const next = seededRandom(20261202);
  const alphabet = "aAdDiIvVhH1-xXnNoOtT";
  const pieces = [...NAMES, ...NAMES.map((name) => name.toUpperCase())];
  let found = 0;
  for (let i = 0; i < 20_000; i++) {
    const text = next() < 0.5
      ? pieces[Math.floor(next() * pieces.length)]
      : Array.from({ length: 1 + Math.floor(next() * 6) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(
        "",
      );
    const name = KNOWN_TAGS.find(text, 0, text.length);
    if (name === undefined) continue;
    found++;
    assert.equal(name, text.toLowerCase(), JSON.stringify(text));
  }
  assert.ok(found > 5_000, `only ${found} found`);
});

Deno.test("every shipped name is lower case, and found as itself", () => {
  for (
    const [kept, sample] of [[KNOWN_TAGS, ["a", "svg", "foreignobject", "annotation-xml", "h6"]], [
      KNOWN_ATTRIBUTES,
      ["href", "class", "aria-label", "viewbox", "http-equiv"],
    ]] as const
  ) {
    for (const name of sample) assert.equal(kept.find(name.toUpperCase(), 0, name.length), name);
  }
  assert.throws(() => new KnownNames(["Div"]), /not a name to keep/);
});
