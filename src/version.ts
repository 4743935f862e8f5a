/**
 * Netweir's version. A constant rather than an import of deno.json, because the npm build ships no deno.json;
 * tests/cli/version_test.ts checks that it matches deno.json's "version".
 */
export const VERSION = "0.4.0";
