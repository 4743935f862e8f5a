/**
 * What a failure of the browser says to the user. puppeteer's own words name its options (a DevTools call that got no
 * answer "timed out. Increase the 'protocolTimeout' setting in launch/connect calls"), which a Netweir user cannot set:
 * such a message is said in the crawl's terms instead.
 */

/** puppeteer's message for a DevTools call Chromium did not answer in time: the call's name comes first. */
const NO_ANSWER = /^(\S+) timed out\. Increase the 'protocolTimeout' setting/;

/** The message of a failure met while driving the browser, in words a crawl's user can act on. */
export function browserErrorMessage(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  const call = NO_ANSWER.exec(message)?.[1];
  if (call === undefined) return message;
  return `Chromium did not answer ${call} in time: it is hung, or starved of memory or CPU`;
}
