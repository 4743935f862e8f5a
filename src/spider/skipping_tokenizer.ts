/**
 * htmlparser2's tokenizer, made to jump over the characters it has nothing to do with. Its main loop takes a page one
 * character at a time through a `switch` on its state, and in text and in quoted attribute values (most of a page's
 * characters) each of those steps decides only that the character is not a `<`, an `&` or the closing quote. Here
 * those states find the next such character with `indexOf` (native, many characters a step) and move there at once.
 * Nothing else changes: the same states see the same characters that matter, so the events, their offsets and the
 * DOM built from them are the stock tokenizer's, which tests/spider/skipping_tokenizer_test.ts holds them to, event
 * for event, on awkward and generated pages.
 *
 * Its own skipping (`fastForwardTo`: comments, CDATA, script and style bodies) is done by `indexOf` too.
 *
 * It relies on three things of htmlparser2 12's tokenizer that its typings keep private: `parse()` moves on with
 * `index++` after each state method, `index` counts from the start of the stream while `buffer` holds the chunk from
 * `offset` on, and the text and quoted-value states do nothing but wait for their stop characters (when entities
 * are decoded). Should a version change that, the methods are missing or the test fails; with no methods to replace,
 * the stock ones stay.
 */
import { Tokenizer } from "htmlparser2";

/** What the replaced states read of the tokenizer, and what they keep on it. */
interface TokenizerState {
  index: number;
  offset: number;
  buffer: string;
  decodeEntities: boolean;
  /** The chunk and the offset in it from which `ampAt` was searched for, and the first `&` from there on. */
  ampBuffer: string | undefined;
  ampFrom: number;
  ampAt: number;
}

type StateMethod = (this: TokenizerState, c: number) => void;

const LT = 0x3c; // <
const AMP = 0x26; // &
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

/**
 * The first `&` in the chunk at or after `from` (the chunk's length when none). Remembered: a page without one
 * would otherwise be searched to its end again for every stretch of text.
 */
function nextAmp(state: TokenizerState, from: number): number {
  const buffer = state.buffer;
  if (state.ampBuffer !== buffer || from < state.ampFrom || from > state.ampAt) {
    const found = buffer.indexOf("&", from);
    state.ampAt = found === -1 ? buffer.length : found;
    state.ampFrom = from;
    state.ampBuffer = buffer;
  }
  return state.ampAt;
}

/** A tokenizer that skips to the next character its state can act on; otherwise htmlparser2's own. */
export class SkippingTokenizer extends Tokenizer {
  /** See nextAmp. */
  ampBuffer: string | undefined = undefined;
  ampFrom = -1;
  ampAt = -1;
}

const stock = Tokenizer.prototype as unknown as Record<string, StateMethod | undefined>;
const replaced = SkippingTokenizer.prototype as unknown as Record<string, StateMethod>;

/** Replaces a state's method with one that jumps to the next stop character, if the stock one is there. */
function skipTo(method: string, stop: number, stopText: string): void {
  const original = stock[method];
  if (typeof original !== "function") return;
  replaced[method] = function (this: TokenizerState, c: number): void {
    if (c === stop || c === AMP || !this.decodeEntities) return original.call(this, c);
    // Nothing to do here: on to just before the next stop (the main loop adds one), or to the end of the chunk.
    const from = this.index - this.offset + 1;
    const found = this.buffer.indexOf(stopText, from);
    const amp = nextAmp(this, from);
    this.index = (found === -1 || amp < found ? amp : found) + this.offset - 1;
  };
}

// The stock tokenizer's own skipping (comments, CDATA, the bodies of script and style, and text when entities are not
// decoded) walks one character at a time in JavaScript; the same contract, by indexOf: on to the next `c` and true,
// or to the last character of the chunk and false.
if (typeof stock.fastForwardTo === "function") {
  (SkippingTokenizer.prototype as unknown as Record<string, (this: TokenizerState, c: number) => boolean>)
    .fastForwardTo = function (this: TokenizerState, c: number): boolean {
      const found = this.buffer.indexOf(String.fromCharCode(c), this.index - this.offset + 1);
      if (found !== -1) {
        this.index = found + this.offset;
        return true;
      }
      this.index = this.buffer.length + this.offset - 1;
      return false;
    };
}

skipTo("stateText", LT, "<");
skipTo("stateInAttributeValueDoubleQuotes", DOUBLE_QUOTE, '"');
skipTo("stateInAttributeValueSingleQuotes", SINGLE_QUOTE, "'");
