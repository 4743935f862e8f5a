/** Turns a setting's value, given as a typed value or as command-line text, into the type its row says. */
import { SettingsError } from "../errors.ts";
import type { SettingDefinition } from "./types.ts";

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);
const NULL = new Set(["null", "none", ""]);

function fail(row: SettingDefinition, message: string): never {
  throw new SettingsError(`setting ${row.cli} ${message}`, { setting: row.cli });
}

/** Parses `-s KEY=VALUE` text by the setting's type. */
export function parseSettingText(row: SettingDefinition, text: string): unknown {
  const trimmed = text.trim();
  if (row.emptyIsMistake && trimmed === "") fail(row, "must not be empty");
  if (row.nullable && NULL.has(trimmed.toLowerCase())) return null;
  switch (row.type) {
    case "int": {
      if (!/^[+-]?\d+$/.test(trimmed)) fail(row, `must be a whole number, not ${JSON.stringify(text)}`);
      return Number(trimmed);
    }
    case "float": {
      const value = Number(trimmed);
      if (trimmed === "" || !Number.isFinite(value)) fail(row, `must be a number, not ${JSON.stringify(text)}`);
      return value;
    }
    case "bool": {
      const lower = trimmed.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      return fail(row, `must be true or false, not ${JSON.stringify(text)}`);
    }
    case "string":
      return text;
    case "strings":
      return trimmed.startsWith("[") ? parseJson(row, trimmed) : splitList(trimmed);
    case "ints":
      return trimmed.startsWith("[") ? parseJson(row, trimmed) : splitList(trimmed).map((part) => {
        if (!/^\d+$/.test(part)) fail(row, `must be whole numbers separated by commas, not ${JSON.stringify(text)}`);
        return Number(part);
      });
    case "headers":
      return parseJson(row, trimmed);
    case "auth-map":
      return trimmed.startsWith("{") ? parseJson(row, trimmed) : parseAuthMap(row, trimmed);
    case "object":
    case "hosts":
      return parseJson(row, trimmed);
  }
}

function splitList(text: string): string[] {
  return text.split(",").map((part) => part.trim()).filter((part) => part !== "");
}

function parseJson(row: SettingDefinition, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fail(row, "must be valid JSON");
  }
}

function parseAuthMap(row: SettingDefinition, text: string): Record<string, { user: string; password: string }> {
  const map: Record<string, { user: string; password: string }> = {};
  for (const entry of splitList(text)) {
    const match = /^([^=]+)=([^:]*):(.*)$/.exec(entry);
    if (!match) fail(row, "must be HOST=USER:PASSWORD entries separated by commas");
    map[match[1].trim().toLowerCase()] = { user: match[2], password: match[3] };
  }
  return map;
}

/** Checks a typed value against the setting's type, choices and own check; returns it normalised. */
export function validateSetting(row: SettingDefinition, value: unknown): unknown {
  if (value === null || value === undefined) {
    if (row.nullable) return null;
    fail(row, "cannot be null");
  }
  switch (row.type) {
    case "int":
      if (typeof value !== "number" || !Number.isInteger(value)) fail(row, `must be a whole number`);
      break;
    case "float":
      if (typeof value !== "number" || !Number.isFinite(value)) fail(row, `must be a number`);
      break;
    case "bool":
      if (typeof value !== "boolean") fail(row, `must be true or false`);
      break;
    case "string":
      if (typeof value !== "string") fail(row, `must be a string`);
      break;
    case "strings":
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) fail(row, `must be a list of strings`);
      break;
    case "ints":
      if (!Array.isArray(value) || value.some((v) => !Number.isInteger(v))) {
        fail(row, `must be a list of whole numbers`);
      }
      break;
    case "headers":
      if (!isRecord(value) || Object.values(value).some((v) => typeof v !== "string")) {
        fail(row, `must be an object of header names to strings`);
      }
      break;
    case "auth-map":
      if (
        !isRecord(value) ||
        Object.values(value).some((v) => !isRecord(v) || typeof v.user !== "string" || typeof v.password !== "string")
      ) fail(row, `must map host names to { user, password }`);
      break;
    case "object":
      if (!isRecord(value)) fail(row, `must be an object (JSON on the command line)`);
      break;
    case "hosts":
      if (!isRecord(value)) fail(row, `must be an object of host patterns to settings`);
      break;
  }
  if (row.choices && !row.choices.includes(value as string)) {
    fail(row, `must be one of ${row.choices.join(", ")}, not ${JSON.stringify(value)}`);
  }
  const problem = row.check?.(value);
  if (problem) fail(row, problem);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
