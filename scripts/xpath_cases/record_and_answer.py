"""Builds tests/fixtures/xpath/parsel_cases.json: XPath cases from parsel's and cssselect's tests, with parsel's answers.

    /usr/bin/python3 scripts/xpath_cases/record_and_answer.py PARSEL_GIT_DIR CSSSELECT_GIT_DIR \\
        tests/fixtures/xpath/parsel_cases.json

The two directories are clones of parsel's and cssselect's repositories (bare or not); their tests are taken at the
tags of the versions that answer them (Debian 12's python3-parsel 1.7.0 and python3-cssselect 1.2.0), since newer
tests import what those versions do not have. Needs python3-parsel (with python3-lxml) and python3-pytest. Two steps:

1. The test files run under pytest with a plugin that writes down the XPath they evaluate on HTML documents:
   record_plugin.py for parsel's (every Selector.xpath call on a selector made from text, or reached from one by
   xpath() and an index; css() arrives as the XPath cssselect makes of it), record_cssselect_plugin.py for
   cssselect's test_select and test_select_shakespeare (the XPath of each selector they run, on their documents).
   Tests that need a newer library fail there; the XPath they evaluated before failing is kept all the same.
2. Each distinct case (document, chain of steps to the context, query, variables) is evaluated again here with
   parsel on the document read as HTML (Selector(text=..., type="html")), and its answer is written beside it, one
   entry per result, saying what lxml returned: {"kind": "element", "name", "value": its string-value} (or
   "valueSha1", the SHA-1 of its UTF-8, when it is over 200 characters),
   {"kind": "text" | "attribute" | "comment" | "pi", ...}, {"kind": "string" | "number" | "boolean", "value"}, or
   {"error": message} when the expression was refused.

Cases on XML documents or with namespaces are left out (Netweir's pages are HTML, read without namespaces). Each
document is stored once, and cases name it by index.
"""

import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

import hashlib

import cssselect
import lxml
import parsel
from lxml import etree
from parsel import Selector

HERE = os.path.dirname(os.path.abspath(__file__))
PARSEL_TESTS = ["tests/test_selector.py", "tests/test_xpathfuncs.py", "tests/test_selector_csstranslator.py"]
CSSSELECT_TESTS = ["tests/test_cssselect.py"]
LONG_VALUE = 200


def extract_tests(git_dir, ref, work):
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", ref, "tests"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", work], input=archive, check=True)


def run_recorded(work, plugin, files, out_path):
    env = {**os.environ, "NETWEIR_XPATH_RECORD": out_path, "PYTHONPATH": HERE}
    # Failures are expected (tests of features newer than Debian's libraries): the run's status is not looked at.
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", plugin, "-p", "no:cacheprovider", *files],
                   cwd=work, env=env, stdout=subprocess.DEVNULL)


def read_lines(path):
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def parsel_cases(git_dir):
    with tempfile.TemporaryDirectory() as work, tempfile.NamedTemporaryFile(suffix=".jsonl") as raw:
        extract_tests(git_dir, f"v{parsel.__version__}", work)
        run_recorded(work, "record_plugin", PARSEL_TESTS, raw.name)
        recorded = read_lines(raw.name)
    return [case for case in recorded
            if case["type"] == "html" and not case["namespaces"]
            and not any(step.get("namespaces") for step in case["chain"])]


def cssselect_cases(git_dir):
    with tempfile.TemporaryDirectory() as work, tempfile.NamedTemporaryFile(suffix=".jsonl") as raw:
        extract_tests(git_dir, f"v{cssselect.__version__}", work)
        run_recorded(work, "record_cssselect_plugin", CSSSELECT_TESTS, raw.name)
        recorded = read_lines(raw.name)
        spec = importlib.util.spec_from_file_location("cssselect_tests", os.path.join(work, CSSSELECT_TESTS[0]))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    cases = []
    for each in recorded:
        shakespeare = each["test"].endswith("test_select_shakespeare")
        cases.append({
            "test": each["test"],
            "html": module.HTML_SHAKESPEARE if shakespeare else module.HTML_IDS,
            # test_select_shakespeare runs its selectors from the <body>, test_select from the root element.
            "chain": [{"query": "//body", "variables": {}, "index": 0}] if shakespeare else [],
            "query": each["query"],
            "variables": {},
        })
    return cases


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
        value = result.xpath("string()")
        if len(value) > LONG_VALUE:
            # A long string-value (a whole <body>'s text) is kept as its SHA-1, to keep the file small.
            return {"kind": "element", "name": result.tag, "valueSha1": hashlib.sha1(value.encode()).hexdigest()}
        return {"kind": "element", "name": result.tag, "value": value}
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


def commit_of(git_dir, ref):
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", ref + "^{commit}"], check=True,
                          capture_output=True, text=True).stdout.strip()


def main(parsel_dir, cssselect_dir, out_path):
    documents = []
    cases = []
    seen = set()
    for case in parsel_cases(parsel_dir) + cssselect_cases(cssselect_dir):
        key = json.dumps([case["html"], case["chain"], case["query"], case["variables"]], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        if case["html"] not in documents:
            documents.append(case["html"])
        cases.append({"id": len(cases) + 1, "test": case["test"], "document": documents.index(case["html"]),
                      "chain": case["chain"], "query": case["query"], "variables": case["variables"],
                      "expected": answer(case)})
    header = {
        "about": "XPath cases from parsel's and cssselect's tests (BSD licences: LICENSE.parsel and "
                 "LICENSE.cssselect beside this file), answered by parsel and lxml on the documents read as HTML; "
                 "made by scripts/xpath_cases/record_and_answer.py",
        "tests": {"parsel": commit_of(parsel_dir, f"v{parsel.__version__}"),
                  "cssselect": commit_of(cssselect_dir, f"v{cssselect.__version__}")},
        "answeredBy": {"parsel": parsel.__version__, "cssselect": cssselect.__version__, "lxml": lxml.__version__,
                       "libxml2": ".".join(map(str, etree.LIBXML_VERSION))},
    }
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("{\n")
        for key, value in header.items():
            out.write(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},\n")
        out.write('  "documents": [\n')
        out.write(",\n".join("    " + json.dumps(document, ensure_ascii=False) for document in documents))
        out.write('\n  ],\n  "cases": [\n')
        out.write(",\n".join("    " + json.dumps(case, ensure_ascii=False) for case in cases))
        out.write("\n  ]\n}\n")
    # In the repository's JSON style, so that `deno fmt --check` passes on it.
    subprocess.run(["deno", "fmt", "--quiet", out_path], check=True)
    print(f"{len(cases)} cases on {len(documents)} documents written to {out_path}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
