/**
 * The item JSON Schema of the `monitors` setting, compiled with ajv (a maintained validator, JSON Schema draft-07 by
 * default, the one most tools write). ajv costs about 0.4 s to import and 0.2 s to compile a schema on a busy machine,
 * so it is imported only here, and this module only when a schema is set: a crawl without one never loads it.
 */
import { SettingsError } from "../errors.ts";
import type { Item } from "../spider/types.ts";
import { importPackage } from "../runtime/optional_module.ts";

/** A compiled item schema. */
export interface ItemSchema {
  /** The fields an item breaks the schema on (`(item)` for the item as a whole), or an empty list when it matches. */
  invalidFields(item: Item): string[];
}

interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** The field an error is about: a missing property's name, or the first step of the failing value's path. */
function errorField(error: SchemaError): string {
  if (error.keyword === "required" && typeof error.params.missingProperty === "string") {
    return error.params.missingProperty;
  }
  const first = error.instancePath.split("/")[1];
  return first === undefined || first === "" ? "(item)" : first.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Compiles `schema`; a schema ajv refuses is a SettingsError naming why (exit 2 on the command line). */
export async function compileItemSchema(schema: Record<string, unknown> | boolean): Promise<ItemSchema> {
  const module = await importPackage<unknown>("npm:ajv@8.20.0") as {
    Ajv?: AjvClass;
    default: AjvClass | { default: AjvClass };
  };
  const Ajv = module.Ajv ?? ("default" in module.default ? module.default.default : module.default);
  // allErrors: every field an item breaks is counted, not the first only. strict off: a keyword ajv does not know
  // (one of another draft, or a tool's own) is ignored rather than refused, as most validators do.
  const ajv = new Ajv({ allErrors: true, strict: false });
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new SettingsError(`setting monitors: schema is not a valid JSON Schema: ${(error as Error).message}`, {
      setting: "monitors",
    });
  }
  return {
    invalidFields(item: Item): string[] {
      if (validate(item)) return [];
      return [...new Set((validate.errors ?? []).map(errorField))];
    },
  };
}

type ValidateFunction = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };
type AjvClass = new (options: Record<string, unknown>) => { compile(schema: unknown): ValidateFunction };
