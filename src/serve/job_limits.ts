/**
 * How much a job may be given over HTTP: how many spider arguments and settings, and how long each may be. Anyone who
 * can schedule chooses these, and every one of them is checked, masked, stored, shown on pages and passed to the
 * crawl: a 1 MB body of 116,000 arguments kept schedule.json busy for 12 s (each name is checked against a fresh
 * Spider). The limits sit far above what a spider needs (Scrapy's spiders take a handful of arguments) and far below
 * what the 1 MB body allows.
 */

/** The most spider arguments one job may have; the same for settings. */
export const MAX_JOB_PAIRS = 256;

/** The most characters of one argument's or setting's value (64 KiB of text: a long list of start URLs fits). */
export const MAX_VALUE_LENGTH = 65_536;

/** The most characters of a spider argument's name (setting names are the table's own). */
export const MAX_ARGUMENT_NAME_LENGTH = 128;

/** A name as a message shows it: its start, when it is too long to show whole. */
function shown(name: string): string {
  return name.length <= 40 ? name : `${name.slice(0, 40)}...`;
}

/** The refusal of a job with more than MAX_JOB_PAIRS arguments or settings. */
export function tooManyProblem(kind: "spider argument" | "setting"): string {
  return `too many ${kind}s: a job can have at most ${MAX_JOB_PAIRS}`;
}

/**
 * Why these "NAME=VALUE" pairs (a job's spider arguments, or its settings) break the limits, in one line, or
 * undefined when they do not. `kind` is how the line names one pair: "spider argument" or "setting".
 */
export function pairLimitProblem(kind: "spider argument" | "setting", pairs: readonly string[]): string | undefined {
  if (pairs.length > MAX_JOB_PAIRS) return tooManyProblem(kind);
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const length = eq < 0 ? 0 : pair.length - eq - 1;
    if (kind === "spider argument" && name.length > MAX_ARGUMENT_NAME_LENGTH) {
      return `${kind} ${shown(name)} has a name of ${name.length} characters; the most is ${MAX_ARGUMENT_NAME_LENGTH}`;
    }
    if (length > MAX_VALUE_LENGTH) {
      return `${kind} ${shown(name)} is ${length} characters long; a value can have at most ${MAX_VALUE_LENGTH}`;
    }
  }
  return undefined;
}

/** Why a job's arguments or settings break the limits (one line), or undefined: for jobs stored before the limits. */
export function jobLimitProblem(job: { settings: readonly string[]; args: readonly string[] }): string | undefined {
  return pairLimitProblem("spider argument", job.args) ?? pairLimitProblem("setting", job.settings);
}
