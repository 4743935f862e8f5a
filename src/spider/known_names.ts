/**
 * Tag and attribute names read from a page without making a string of each. A name sliced from the page and lower-cased
 * is two new strings, which every Set or Map lookup then hashes and every property store with it as a key looks up in
 * V8's string table; most names on a page are a few dozen HTML ones. A name found here is one shared string, hashed
 * and interned once, read off the page's characters in place.
 */

/** The longest name kept: longer ones are rare and are sliced as before. */
const LONGEST = 24;

const UPPER_A = 0x41;
const UPPER_Z = 0x5a;

/** Buckets of the table: a power of two, a few times the names kept, so that most hold one name or none. */
const BUCKETS = 1024;

/**
 * A hash of `text[start, end)` lower-cased (ASCII letters only: the names kept are ASCII). Kept within 26 bits, so that
 * it stays a small integer all along (a 32-bit one would leave V8's small integers for heap numbers).
 */
function hashLowered(text: string, start: number, end: number): number {
  let hash = end - start;
  for (let i = start; i < end; i++) {
    let code = text.charCodeAt(i);
    if (code >= UPPER_A && code <= UPPER_Z) code |= 0x20;
    hash = (hash * 31 + code) & 0x3ffffff;
  }
  return hash;
}

export class KnownNames {
  /** Per bucket, its names and their hashes, side by side. */
  readonly #names: Array<string[] | undefined> = new Array(BUCKETS).fill(undefined);
  readonly #hashes: Array<number[] | undefined> = new Array(BUCKETS).fill(undefined);

  /** `names` in lower case, ASCII. */
  constructor(names: Iterable<string>) {
    for (const name of names) {
      if (name.length > LONGEST || name !== name.toLowerCase()) throw new Error(`not a name to keep: ${name}`);
      const hash = hashLowered(name, 0, name.length);
      const bucket = hash & (BUCKETS - 1);
      const names = this.#names[bucket] ??= [];
      const hashes = this.#hashes[bucket] ??= [];
      if (names.includes(name)) continue;
      names.push(name);
      hashes.push(hash);
    }
  }

  /**
   * The kept name that `text[start, end)` spells in any case (what `toLowerCase()` of that slice gives), or undefined
   * when it spells none of them.
   */
  find(text: string, start: number, end: number): string | undefined {
    const length = end - start;
    if (length === 0 || length > LONGEST) return undefined;
    const hash = hashLowered(text, start, end);
    const bucket = hash & (BUCKETS - 1);
    const hashes = this.#hashes[bucket];
    if (hashes === undefined) return undefined;
    const names = this.#names[bucket]!;
    for (let n = 0; n < hashes.length; n++) {
      const name = names[n];
      if (hashes[n] !== hash || name.length !== length) continue;
      let i = 0;
      while (i < length) {
        let code = text.charCodeAt(start + i);
        if (code >= UPPER_A && code <= UPPER_Z) code |= 0x20;
        if (code !== name.charCodeAt(i)) break;
        i++;
      }
      if (i === length) return name;
    }
    return undefined;
  }
}

/** HTML's (and SVG's and MathML's, lower-cased) usual element names. */
export const KNOWN_TAGS = new KnownNames([
  ..."a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption cite code col"
    .split(" "),
  ..."colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure footer form h1 h2"
    .split(" "),
  ..."h3 h4 h5 h6 head header hgroup hr html i iframe img image input ins kbd label legend li link main map mark menu"
    .split(" "),
  ..."meta meter nav noscript object ol optgroup option output p param picture pre progress q rp rt ruby s samp script"
    .split(" "),
  ..."search section select slot small source span strong style sub summary sup table tbody td template textarea tfoot"
    .split(" "),
  ..."th thead time title tr track u ul var video wbr svg path g use symbol defs circle rect line polyline polygon"
    .split(" "),
  ..."ellipse text tspan lineargradient radialgradient stop clippath mask pattern filter desc foreignobject math mi mo"
    .split(" "),
  ..."mn ms mtext annotation-xml noindex font center nobr"
    .split(" "),
]);

/** The usual attribute names. */
export const KNOWN_ATTRIBUTES = new KnownNames([
  ..."href src alt title class id rel type name content style width height lang charset value action method for"
    .split(" "),
  ..."target role srcset sizes loading decoding property itemprop itemscope itemtype http-equiv crossorigin integrity"
    .split(" "),
  ..."async defer media colspan rowspan placeholder disabled checked selected readonly required multiple tabindex"
    .split(" "),
  ..."hidden dir aria-label aria-hidden aria-expanded aria-controls aria-labelledby aria-describedby aria-current"
    .split(" "),
  ..."data-id data-src data-href data-toggle data-target xmlns viewbox d fill stroke fill-rule clip-rule points"
    .split(" "),
  ..."autocomplete accept enctype download hreflang referrerpolicy sandbox allow frameborder scrolling poster"
    .split(" "),
  ..."controls autoplay muted loop playsinline label maxlength minlength min max step pattern size nonce translate"
    .split(" "),
]);
