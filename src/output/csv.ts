/**
 * CSV feeds (.csv), as Scrapy's CsvItemExporter writes them: a header from the first item's keys in their order,
 * every later item in that column order (missing keys empty, extra keys dropped with one warning), nested values as
 * JSON text, RFC 4180 quoting and CRLF line ends. `-o` onto a non-empty file keeps its header and its columns.
 */
import type { Item, Logger } from "../spider/types.ts";
import type { Feed, FeedFormat, FeedOptions } from "./feed.ts";
import { endsWithoutNewline, type FeedEncoder, FileFeed, openFeedFile, readBytes } from "./feed_file.ts";

const LINE_END = "\r\n";

/** Quotes a field when RFC 4180 requires it: it holds a comma, a double quote, CR or LF. */
export function quoteCsvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The text of one cell: strings as they are, null and undefined empty, objects and arrays as JSON. */
export function csvCellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** One CSV line with its CRLF. A lone empty field is written `""` so the line is not mistaken for a blank one. */
export function csvLine(fields: readonly string[]): string {
  if (fields.length === 1 && fields[0] === "") return '""' + LINE_END;
  return fields.map(quoteCsvField).join(",") + LINE_END;
}

/**
 * Parses the first record of CSV text. `complete` is false when the text ends inside the record (more of the file
 * is needed to see all of it).
 */
export function parseFirstCsvRecord(text: string): { fields: string[]; complete: boolean } {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[i + 1] === '"') (field += '"'), i++;
      else quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === ",") fields.push(field), (field = "");
    else if (char === "\n" || char === "\r") {
      fields.push(field);
      return { fields, complete: true };
    } else field += char;
  }
  fields.push(field);
  return { fields, complete: false };
}

/** Options for {@link csvEncoder}. */
export interface CsvEncoderOptions {
  /** The columns, when the file already has a header; otherwise the first item's keys are used and written. */
  columns?: readonly string[];
  /** Text before the first row (a line end when appending to a file whose last line is unterminated). */
  prefix?: string;
  /** Gets one warning the first time an item has keys outside the columns. */
  log?: Logger;
  /** Named in the warning. */
  path?: string;
}

/** Encodes batches as CSV rows; the header is decided by the first item unless `columns` is given. */
export function csvEncoder(options: CsvEncoderOptions = {}): FeedEncoder {
  let columns = options.columns;
  let prefix = options.prefix ?? "";
  let warned = false;

  const row = (item: Item, known: ReadonlySet<string>): string => {
    if (!warned) {
      const extra = Object.keys(item).filter((key) => !known.has(key));
      if (extra.length > 0) {
        warned = true;
        options.log?.warning(`CSV feed ${options.path ?? ""}: item keys not in the header are dropped`.trim(), {
          keys: extra,
          columns: [...known],
        });
      }
    }
    return csvLine(columns!.map((column) => csvCellText(item[column])));
  };

  return {
    start: () => "",
    encode(items: Item[]) {
      let text = prefix;
      if (columns === undefined) {
        columns = Object.keys(items[0]);
        text += csvLine(columns);
      }
      const known = new Set(columns);
      for (const item of items) text += row(item, known);
      prefix = "";
      return text;
    },
    finish: () => "",
  };
}

/** The longest header read back from an existing file when appending; a header past this is not a header. */
const MAX_HEADER_BYTES = 1 << 20;

/** Opens a CSV feed. Appending to a non-empty file writes no header and uses the file's own columns. */
export async function openCsvFeed(path: string, options: FeedOptions): Promise<Feed> {
  const file = await openFeedFile(path, { overwrite: options.overwrite, appendable: true, label: "CSV" });
  let columns: string[] | undefined;
  let prefix = "";
  try {
    if (file.existingSize > 0) {
      const head = await readBytes(file.handle, 0, Math.min(file.existingSize, MAX_HEADER_BYTES));
      columns = parseFirstCsvRecord(new TextDecoder().decode(head)).fields;
      if (await endsWithoutNewline(file)) prefix = LINE_END;
    }
  } catch (error) {
    await file.handle.close();
    throw error;
  }
  return FileFeed.start(path, file.handle, csvEncoder({ columns, prefix, log: options.log, path }));
}

/** The CSV format. */
export const csvFormat: FeedFormat = {
  name: "csv",
  extensions: [".csv"],
  appendable: true,
  label: "CSV",
  open: openCsvFeed,
};
