"""A pytest plugin that writes down every XPath parsel's own tests evaluate on an HTML document.

Loaded by record_and_answer.py into a run of parsel's test files (tests/test_selector.py and its neighbours, from
parsel's repository) under Debian's python3-parsel. Each call of Selector.xpath (css() calls it with the XPath
cssselect makes of the selector) on a Selector made from text, or on one reached from such a Selector by xpath()
and an index, is appended to the JSON Lines file named by NETWEIR_XPATH_RECORD: the document, the chain of
(query, variables, index) steps that led to the selector, the query, its variables and the test that ran it.
The answers are not kept here: record_and_answer.py works them out again from the cases alone.
"""

import json
import os

from parsel import Selector

_init = Selector.__init__
_xpath = Selector.xpath
_OUT = os.environ["NETWEIR_XPATH_RECORD"]
# Selector has __slots__: each selector's origin is kept here, by id, with the selector (so its id stays its own).
_origins = {}


def _origin_of(selector):
    kept = _origins.get(id(selector))
    return kept[1] if kept is not None and kept[0] is selector else None


def _set_origin(selector, origin):
    _origins[id(selector)] = (selector, origin)


def _json_safe(values):
    return all(isinstance(v, (str, int, float, bool)) for v in values.values())


def _record(origin, query, namespaces, variables):
    if not isinstance(query, str) or not _json_safe(variables):
        return
    case = {
        "test": os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0],
        "html": origin["html"],
        "type": origin["type"],
        "namespaces": {**origin["namespaces"], **(namespaces or {})},
        "chain": origin["chain"],
        "query": query,
        "variables": variables,
    }
    with open(_OUT, "a", encoding="utf-8") as out:
        out.write(json.dumps(case, ensure_ascii=False) + "\n")


def _recording_init(self, text=None, type=None, namespaces=None, *args, **kwargs):
    _init(self, text, type, namespaces, *args, **kwargs)
    if isinstance(text, str):
        _set_origin(self, {"html": text, "type": self.type, "namespaces": dict(namespaces or {}), "chain": []})


def _recording_xpath(self, query, namespaces=None, **variables):
    origin = _origin_of(self)
    if origin is not None:
        _record(origin, query, namespaces, variables)
    result = _xpath(self, query, namespaces=namespaces, **variables)
    if origin is not None and not namespaces and _json_safe(variables):
        for index, selector in enumerate(result):
            step = {"query": query, "variables": variables, "index": index}
            _set_origin(selector, {**origin, "chain": origin["chain"] + [step]})
    return result


Selector.__init__ = _recording_init
Selector.xpath = _recording_xpath
