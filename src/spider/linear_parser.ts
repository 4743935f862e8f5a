/**
 * htmlparser2's Parser, with its stacks of open tags kept at the end of an array instead of the front. The Parser
 * keeps the open tags' names (and the foreign-content contexts) innermost first, with `unshift` and `shift`, each a copy
 * of the whole stack: a page nested n deep cost n²/2 copies, 33 s to parse 2.2 MB of divs nested 200,000 deep and 240 s
 * for 4.4 MB at 400,000 (which is why `css("div:first-child")` did not finish in 16 minutes on 20 MB). The stacks here
 * answer the same calls (`[0]`, `unshift`, `shift`, `indexOf`, `includes`, `length`) with the innermost last, so each
 * is a push or a pop; the Parser's own code runs unchanged, and builds the same DOM.
 */
import { Parser } from "htmlparser2";
import { type Document, DomHandler } from "domhandler";
import { SkippingTokenizer } from "./skipping_tokenizer.ts";

/** The stack calls htmlparser2's Parser makes, with index 0 the innermost (the top), kept innermost last. */
class TopFirstStack<T> {
  /** Innermost last. */
  readonly #items: T[];

  /** A stack of `topFirst`'s items (innermost first, as the Parser lists them). */
  constructor(topFirst: readonly T[]) {
    this.#items = topFirst.slice().reverse();
  }

  get length(): number {
    return this.#items.length;
  }

  /** Keeps the innermost `length` items (the Parser only ever empties its stacks so). */
  set length(length: number) {
    this.#items.splice(0, Math.max(0, this.#items.length - length));
  }

  /** The innermost item. */
  get 0(): T | undefined {
    return this.#items[this.#items.length - 1];
  }

  unshift(item: T): number {
    return this.#items.push(item);
  }

  shift(): T | undefined {
    return this.#items.pop();
  }

  /** How far from the innermost the innermost `item` is, or -1. */
  indexOf(item: T): number {
    const last = this.#items.length - 1;
    for (let i = last; i >= 0; i--) if (this.#items[i] === item) return last - i;
    return -1;
  }

  includes(item: T): boolean {
    return this.#items.includes(item);
  }

  /** The items innermost first, as an array. */
  toArray(): T[] {
    return this.#items.slice().reverse();
  }
}

/** The Parser's stacks (private in its typings, plain fields in its code). */
interface ParserStacks {
  stack: TopFirstStack<string> | string[];
  foreignContext: TopFirstStack<unknown> | unknown[];
}

/** htmlparser2's Parser with stacks whose every step costs the same at any depth. */
export class LinearParser extends Parser {
  constructor(...args: ConstructorParameters<typeof Parser>) {
    super(...args);
    const self = this as unknown as ParserStacks;
    self.stack = new TopFirstStack(self.stack as string[]);
    self.foreignContext = new TopFirstStack(self.foreignContext as unknown[]);
  }

  /** The Parser closes the tags left open at the end by index; it gets them as an array for that. */
  override onend(): void {
    const self = this as unknown as ParserStacks;
    const stack = self.stack as TopFirstStack<string>;
    self.stack = stack.toArray();
    try {
      super.onend();
    } finally {
      self.stack = stack;
    }
  }
}

/** The DOM of an HTML page, as htmlparser2's `parseDocument(html, { Tokenizer: SkippingTokenizer })` builds it. */
export function parseHtmlDocument(html: string): Document {
  const handler = new DomHandler();
  new LinearParser(handler, { Tokenizer: SkippingTokenizer }).end(html);
  return handler.root;
}
