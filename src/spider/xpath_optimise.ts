/**
 * One rewrite of a parsed XPath expression, made once when it is parsed: `//name[predicates]` into
 * `/descendant::name[predicates]`. XPath reads `//` as `/descendant-or-self::node()/child::name`, and the `xpath`
 * library does just that: it takes the children of every node of the page in turn, and sorts and filters each
 * node's children on their own, which for a page of a few thousand nodes is most of the time an expression takes.
 * `descendant::name` selects the same nodes in one walk, and applies the predicates to all of them at once.
 *
 * The two mean the same only when no predicate depends on a node's position among its siblings (`//li[1]` is the first
 * `li` of each list, `/descendant::li[1]` the first of the page): the rewrite is made only when every predicate is
 * sure to be a boolean, node-set or string test (a comparison, `and`/`or`, a path, or a function of that kind) with
 * no `position()` or `last()` anywhere in it. Any other predicate keeps the step as written.
 */

/** The parts of the library's syntax tree read here (the classes are the library's exports). */
export interface XPathSyntax {
  PathExpr: new () => { filter?: unknown; filterPredicates?: unknown[]; locationPath?: LocationPathNode };
  LocationPath: new () => LocationPathNode;
  Step: StepClass;
  NodeTest: { nodeTest: unknown };
  FunctionCall: new () => { functionName: string; arguments: unknown[] };
  OrOperation: new () => unknown;
  AndOperation: new () => unknown;
  EqualsOperation: new () => unknown;
  NotEqualOperation: new () => unknown;
  LessThanOperation: new () => unknown;
  GreaterThanOperation: new () => unknown;
  LessThanOrEqualOperation: new () => unknown;
  GreaterThanOrEqualOperation: new () => unknown;
}
interface StepNode {
  axis: number;
  nodeTest: unknown;
  predicates: unknown[];
}
interface StepClass {
  new (axis: number, nodeTest: unknown, predicates: unknown[]): StepNode;
  CHILD: number;
  DESCENDANT: number;
  DESCENDANTORSELF: number;
}
interface LocationPathNode {
  absolute: boolean;
  steps: StepNode[];
}

/** Functions whose value is a boolean or a string: as a predicate, a test, never a position. */
const TEST_FUNCTIONS = new Set([
  ..."not boolean true false lang contains starts-with string concat normalize-space translate".split(" "),
  ..."substring substring-before substring-after local-name name namespace-uri has-class re:test re:replace".split(" "),
]);

/** Whether `expression` (anywhere in it) calls position() or last(). */
function usesPosition(expression: unknown): boolean {
  if (expression === null || typeof expression !== "object") return false;
  const record = expression as Record<string, unknown>;
  if (typeof record.functionName === "string" && /^(position|last)$/.test(record.functionName)) return true;
  for (const key of ["lhs", "rhs", "filter", "locationPath", "arguments", "filterPredicates", "steps", "predicates"]) {
    const part = record[key];
    if (Array.isArray(part) ? part.some(usesPosition) : usesPosition(part)) return true;
  }
  return false;
}

/** Whether a predicate is a test whose answer does not depend on where the node is among its siblings. */
function isPositionFree(predicate: unknown, syntax: XPathSyntax): boolean {
  if (usesPosition(predicate)) return false;
  const tests = [
    syntax.OrOperation,
    syntax.AndOperation,
    syntax.EqualsOperation,
    syntax.NotEqualOperation,
    syntax.LessThanOperation,
    syntax.GreaterThanOperation,
    syntax.LessThanOrEqualOperation,
    syntax.GreaterThanOrEqualOperation,
  ];
  if (tests.some((kind) => predicate instanceof kind)) return true;
  if (predicate instanceof syntax.PathExpr) {
    // A path is a node-set (a test of existence); a bare filter (`[(1)]`, `[$n]`) is whatever its expression is.
    return predicate.locationPath !== undefined || isPositionFree(predicate.filter, syntax);
  }
  return predicate instanceof syntax.FunctionCall && TEST_FUNCTIONS.has(predicate.functionName);
}

function rewriteSteps(path: LocationPathNode, syntax: XPathSyntax): void {
  const { Step } = syntax;
  const steps = path.steps;
  for (let i = 0; i + 1 < steps.length; i++) {
    const [any, child] = [steps[i], steps[i + 1]];
    if (
      any.axis === Step.DESCENDANTORSELF && any.nodeTest === syntax.NodeTest.nodeTest && any.predicates.length === 0 &&
      child.axis === Step.CHILD && child.predicates.every((predicate) => isPositionFree(predicate, syntax))
    ) {
      steps.splice(i, 2, new Step(Step.DESCENDANT, child.nodeTest, child.predicates));
    }
  }
}

/** Rewrites every `//name` step of a parsed expression (in place) where the rewrite means the same. */
export function optimiseXPath(expression: unknown, syntax: XPathSyntax): void {
  if (expression === null || typeof expression !== "object") return;
  if (expression instanceof syntax.LocationPath) rewriteSteps(expression, syntax);
  const record = expression as Record<string, unknown>;
  for (const key of ["lhs", "rhs", "filter", "locationPath", "arguments", "filterPredicates", "steps", "predicates"]) {
    const part = record[key];
    if (Array.isArray(part)) { for (const each of part) optimiseXPath(each, syntax); }
    else optimiseXPath(part, syntax);
  }
}
