/**
 * Pages a second over the last minute, from the samples a process takes at each heartbeat. The heartbeat comes every
 * third of a lease (20 s by default), so the window is the minute before the latest beat give or take one interval:
 * samples are dropped while the next one is at least a minute old, and the oldest kept starts the window. A process
 * younger than a minute measures from its first beat.
 */

/** The window the rate is measured over. */
export const RATE_WINDOW_MS = 60_000;

interface Sample {
  at: number;
  pages: number;
}

export class PageRate {
  readonly #samples: Sample[] = [];

  /** Records `pages` (a running total) at `at` (ms, the process's clock) and returns pages a second since the window began. */
  sample(at: number, pages: number): number {
    const samples = this.#samples;
    samples.push({ at, pages });
    while (samples.length > 2 && samples[1].at <= at - RATE_WINDOW_MS) samples.shift();
    const first = samples[0];
    const seconds = (at - first.at) / 1000;
    return seconds > 0 ? Math.max(0, pages - first.pages) / seconds : 0;
  }
}
