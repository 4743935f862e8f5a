/** What `netweir crawl` hands to runCrawlCommand (src/cli/crawl.ts): the command line, parsed but not interpreted. */

/** One feed from `-o PATH` (overwrite false: append) or `-O PATH` (overwrite true). */
export interface CrawlOutput {
  path: string;
  overwrite: boolean;
}

/** The options of `netweir crawl FILE`. Values are strings as given; their meaning is runCrawlCommand's to check. */
export interface CrawlCommandOptions {
  /** The spider file, as given (relative to the working directory). */
  file: string;
  /** The feeds from `-o` and `-O`, in command-line order. */
  outputs: CrawlOutput[];
  /** `--spider NAME`: which spider of the file to run. */
  spider?: string;
  /**
   * Settings as "KEY=VALUE": the `-s` ones in order, then `queue=`, `queue_key=`, `stats_file=` and `log_level=` from
   * `--queue`, `--queue-key`, `--stats-file` and `--log-level`, so those win over the same key given with `-s`.
   */
  settings: string[];
  /** Spider arguments from `-a`, as "NAME=VALUE". */
  args: string[];
}
