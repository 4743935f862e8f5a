"""Builds tests/fixtures/xpath/parsel_cases.json: XPath cases taken from parsel's own tests, with parsel's answers.

    /usr/bin/python3 scripts/xpath_cases/record_and_answer.py PARSEL_GIT_DIR tests/fixtures/xpath/parsel_cases.json

PARSEL_GIT_DIR is a clone of parsel's repository (bare or not); its tests are taken at the tag of the parsel that
answers them (v1.7.0 for Debian 12's), since newer tests import what that parsel does not have. Needs Debian's python3-parsel (with python3-lxml) and
python3-pytest. Two steps:

1. parsel's test files are run by pytest with record_plugin.py, which writes down every XPath they evaluate on an
   HTML document (CSS selectors come as the XPath cssselect makes of them). Tests that need a newer parsel than
   Debian's fail there; the XPath they evaluated before failing is kept all the same.
2. Each distinct case (document, chain of steps, query, variables) is evaluated again here with Debian's parsel and
   lxml, and its answer is written beside it, one entry per result, saying what lxml returned:
   {"kind": "element", "name", "value": its string-value}, {"kind": "text" | "attribute" | "comment" | "pi", ...},
   {"kind": "string" | "number" | "boolean", "value"}, or {"error": message} when lxml refused the expression.

Cases on XML documents, with namespaces, or on documents over 20,000 characters are left out (Netweir's pages are
HTML, read without namespaces).
"""

import json
import math
import os
import subprocess
import sys
import tempfile

import lxml
import parsel
from lxml import etree
from parsel import Selector

TEST_FILES = ["tests/test_selector.py", "tests/test_xpathfuncs.py", "tests/test_selector_csstranslator.py"]
MAX_HTML = 20_000


def record(git_dir, ref, out_path):
    with tempfile.TemporaryDirectory() as work:
        archive = subprocess.run(["git", "--git-dir", git_dir, "archive", ref, "tests"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", work], input=archive, check=True)
        env = {**os.environ, "NETWEIR_XPATH_RECORD": out_path,
               "PYTHONPATH": os.path.dirname(os.path.abspath(__file__))}
        # Failures are expected (tests of features newer than Debian's parsel): the run's status is not looked at.
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "record_plugin", "-p", "no:cacheprovider",
                        *TEST_FILES], cwd=work, env=env, stdout=subprocess.DEVNULL)


def number(value):
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def describe(result):
    if isinstance(result, bool):
        return {"kind": "boolean", "value": result}
    if isinstance(result, float):
        return {"kind": "number", "value": number(result)}
    if isinstance(result, etree._ElementUnicodeResult):
        if result.is_attribute:
            return {"kind": "attribute", "name": result.attrname, "value": str(result)}
        if result.is_text or result.is_tail:
            return {"kind": "text", "value": str(result)}
        return {"kind": "string", "value": str(result)}
    if isinstance(result, str):
        return {"kind": "string", "value": str(result)}
    if isinstance(result, etree._Comment):
        return {"kind": "comment", "value": result.text or ""}
    if isinstance(result, etree._ProcessingInstruction):
        return {"kind": "pi", "name": result.target, "value": result.text or ""}
    if isinstance(result, etree._Element):
        return {"kind": "element", "name": result.tag, "value": result.xpath("string()")}
    return {"kind": "other", "value": repr(result)}


def answer(case):
    selector = Selector(text=case["html"], type="html")
    for step in case["chain"]:
        selector = selector.xpath(step["query"], **step["variables"])[step["index"]]
    if not hasattr(selector.root, "xpath"):
        return []  # parsel's answer for an XPath on a string result
    try:
        found = selector.root.xpath(case["query"], namespaces=selector.namespaces, smart_strings=True,
                                    **case["variables"])
    except (etree.XPathError, ValueError) as error:
        return {"error": str(error)}
    return [describe(each) for each in (found if isinstance(found, list) else [found])]


def main(git_dir, out_path):
    ref = f"v{parsel.__version__}"
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as raw:
        record(git_dir, ref, raw.name)
        with open(raw.name, encoding="utf-8") as lines:
            recorded = [json.loads(line) for line in lines]
    cases = []
    seen = set()
    for case in recorded:
        if case["type"] != "html" or case["namespaces"] or len(case["html"]) > MAX_HTML:
            continue
        if any(step.get("namespaces") for step in case["chain"]):
            continue
        key = json.dumps([case["html"], case["chain"], case["query"], case["variables"]], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        cases.append({"id": len(cases) + 1, "test": case["test"], "html": case["html"], "chain": case["chain"],
                      "query": case["query"], "variables": case["variables"], "expected": answer(case)})
    commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", ref + "^{commit}"], check=True, capture_output=True,
                            text=True).stdout.strip()
    data = {
        "about": "XPath cases from parsel's tests (BSD licence: LICENSE.parsel beside this file), answered by "
                 "parsel and lxml; made by scripts/xpath_cases/record_and_answer.py",
        "parselTests": commit,
        "answeredBy": {"parsel": parsel.__version__, "lxml": lxml.__version__,
                       "libxml2": ".".join(map(str, etree.LIBXML_VERSION))},
        "cases": cases,
    }
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("{\n")
        for key in ["about", "parselTests", "answeredBy"]:
            out.write(f"  {json.dumps(key)}: {json.dumps(data[key], ensure_ascii=False)},\n")
        out.write('  "cases": [\n')
        out.write(",\n".join("    " + json.dumps(case, ensure_ascii=False) for case in cases))
        out.write("\n  ]\n}\n")
    print(f"{len(cases)} cases written to {out_path}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
