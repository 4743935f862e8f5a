/**
 * The INI dialect of `~/.aws/credentials` and `~/.aws/config`: `[section]` headers, `key = value` lines, `#` and `;`
 * comments. Nested blocks (a line indented under `s3 =`) belong to the key above them and are kept as sub-keys
 * (`s3.endpoint_url`), which is how the AWS CLI writes per-service settings.
 */

/** Sections by name, each a map of keys to values. */
export type IniFile = Map<string, Map<string, string>>;

export function parseIni(text: string): IniFile {
  const sections: IniFile = new Map();
  let current: Map<string, string> | undefined;
  let parentKey: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\uFEFF/, "");
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
    const header = /^\[([^\]]+)\]$/.exec(trimmed);
    if (header) {
      const name = header[1].trim().replace(/\s+/g, " ");
      current = sections.get(name) ?? new Map();
      sections.set(name, current);
      parentKey = undefined;
      continue;
    }
    const equals = trimmed.indexOf("=");
    if (!current || equals === -1) continue;
    const key = trimmed.slice(0, equals).trim().toLowerCase();
    const value = trimmed.slice(equals + 1).trim();
    const indented = /^\s/.test(line);
    if (indented && parentKey !== undefined) {
      current.set(`${parentKey}.${key}`, value);
      continue;
    }
    current.set(key, value);
    parentKey = value === "" ? key : undefined;
  }
  return sections;
}
