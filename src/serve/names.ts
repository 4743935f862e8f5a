/** The one rule for project, spider and job names under `netweir serve`: they become folder and file names. */

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Job ids longer than this are refused: each is a file name, and file systems stop at 255 bytes. */
export const MAX_NAME_LENGTH = 128;

/** Whether `name` is letters, digits, ., _ and -, starting with a letter or digit (and not too long). */
export function isServeName(name: string): boolean {
  return NAME.test(name) && name.length <= MAX_NAME_LENGTH;
}

/** The rule in words, for messages. */
export const NAME_RULE = `letters, digits, ., _ and -, starting with a letter or digit (at most ${MAX_NAME_LENGTH})`;

/**
 * Whether a name, taken as a folder under another, would lead out of it (`../p`, `a/../../b`, `/etc`): what scrapyd's
 * egg storage refuses with `DirectoryTraversalError: NAME` on the endpoints that deploy code.
 */
export function leadsOutOfFolder(name: string): boolean {
  if (name.startsWith("/") || name.startsWith("\\")) return true;
  let depth = 0;
  for (const part of name.split(/[/\\]/)) {
    if (part === "..") depth--;
    else if (part !== "" && part !== ".") depth++;
    if (depth < 0) return true;
  }
  return false;
}
