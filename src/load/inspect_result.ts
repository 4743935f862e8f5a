/** What loading a spider file in a child process (`netweir _inspect`) tells about it. */

/** What `_inspect` prints, as JSON, on the last line of its standard output. */
export type InspectResult =
  | { file: string; spiders: InspectedSpider[] }
  | { file: string; error: string };

/** One spider as `_inspect` describes it: enough for `netweir serve` to check a job's settings without running it. */
export interface InspectedSpider {
  name: string;
  className: string;
  /** The spider's own settings, in command-line spelling. */
  settings: Record<string, unknown>;
  /** The spider's own profiles, as given. */
  profiles: Record<string, Record<string, unknown>>;
}
