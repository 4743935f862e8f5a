/**
 * A schedule's timing: a cron expression in a time zone, read by croner (npm), which has no dependencies, runs
 * unchanged under Deno and Node 22, and computes the next time in any IANA zone across daylight-saving changes
 * (docs/design/serve.md says why it was chosen). Only its parser and `nextRun` are used: the service keeps its own
 * timer, so a due time is fired from jobs.db, not from a timer croner holds.
 */
import { Cron } from "croner";

/** The names croner accepts for common expressions, as cron's own @-names. */
const NICKNAMES = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

/** A checked cron expression and time zone: when it is next due. */
export interface CronTiming {
  readonly expression: string;
  /** An IANA time zone; the service's own when none was given. */
  readonly timezone: string;
  /** The first due time strictly after `after` (epoch ms), or undefined when it never comes again. */
  nextAfter(after: number): number | undefined;
}

/** The time zone the service runs in, the default of a schedule. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";
}

/**
 * Reads a cron expression: five fields (minute hour day month weekday), six with seconds first, or an @-name such as
 * @hourly and @daily. Throws RangeError naming what is wrong (a field out of range, an unknown zone).
 */
export function parseCron(expression: string, timezone: string = localTimeZone()): CronTiming {
  const text = expression.trim().replace(/\s+/g, " ");
  const fields = text.split(" ").length;
  if (text.startsWith("@") ? !NICKNAMES.has(text.toLowerCase()) : fields < 5 || fields > 6) {
    throw new RangeError(
      `cron expression ${JSON.stringify(expression)} is invalid: it must have five fields (minute hour day month ` +
        `weekday), six with seconds first, or be one of ${[...NICKNAMES].join(", ")}`,
    );
  }
  if (!isTimeZone(timezone)) {
    throw new RangeError(`time zone ${JSON.stringify(timezone)} is unknown: give an IANA name such as Europe/Paris`);
  }
  let cron: Cron;
  try {
    cron = new Cron(text, { timezone, paused: true });
  } catch (error) {
    throw new RangeError(`cron expression ${JSON.stringify(expression)} is invalid: ${(error as Error).message}`);
  }
  return {
    expression: text,
    timezone,
    nextAfter(after) {
      return cron.nextRun(new Date(after))?.getTime();
    },
  };
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return name !== "";
  } catch {
    return false;
  }
}
