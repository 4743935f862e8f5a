/**
 * URL patterns of `browser_block`: globs over the whole URL, in the syntax Chromium's DevTools Fetch domain takes for
 * the requests it pauses (`*` any run of characters, `/` included; `?` one character; `\` makes the next character
 * plain). The same globs go to Chromium, so it pauses only the requests that may be blocked, and are matched here
 * again, since a paused request does not say which pattern paused it.
 */

/** A matcher for a list of globs: whether a URL matches any of them. */
export type UrlBlock = (url: string) => boolean;

/** The regular expression a glob stands for, matching the whole URL. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    if (char === "*") source += "[\\s\\S]*";
    else if (char === "?") source += "[\\s\\S]";
    else if (char === "\\" && index + 1 < glob.length) source += escape(glob[++index]);
    else source += escape(char);
  }
  return new RegExp(`^${source}$`);
}

function escape(char: string): string {
  return char.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** The matcher for `globs`; one that matches nothing when there are none. */
export function urlBlock(globs: readonly string[]): UrlBlock {
  if (globs.length === 0) return () => false;
  const patterns = globs.map(globToRegExp);
  return (url) => patterns.some((pattern) => pattern.test(url));
}
