/** The value types a setting can have, and how one definition in the table is written. */

/** The type of a setting's values, by the name the table gives it. */
export type SettingType =
  | "int"
  | "float"
  | "bool"
  | "string"
  | "strings"
  | "ints"
  | "headers"
  | "auth-map"
  | "object"
  | "hosts";

/** One row of the settings table. */
export interface SettingDefinition<T = unknown> {
  /** camelCase name used in TypeScript. */
  key: string;
  /** snake_case name used with `-s` and over HTTP. */
  cli: string;
  /** The type of its values, which also says how `-s` text is read. */
  type: SettingType;
  /** Whether `null` (Python's None) is an allowed value. */
  nullable?: boolean;
  /**
   * Refuse empty text on the command line rather than read it as null: for settings where an empty value is a
   * mistake (an empty queue URL or key), not a way of saying "none".
   */
  emptyIsMistake?: boolean;
  /** For string settings with a fixed set of values. */
  choices?: readonly string[];
  /** The value when no layer gives one. */
  default: T;
  /** Checks one value on its own; returns a problem in words, or undefined. */
  check?: (value: T) => string | undefined;
  /** One line for docs and `--help`. */
  doc: string;
  /** Set when the feature behind the setting has not been built yet: using it is refused at start. */
  unavailable?: boolean;
}
