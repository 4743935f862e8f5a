"""A pytest plugin that writes down the XPath cssselect makes of each selector its own tests run on a document.

Loaded by record_and_answer.py into a run of cssselect's tests/test_cssselect.py under Debian's python3-cssselect.
In test_select (on the document HTML_IDS) and test_select_shakespeare (on HTML_SHAKESPEARE, from its <body>), each
XPath a translator makes is appended to the JSON Lines file named by NETWEIR_XPATH_RECORD with the test's name; the
documents themselves are read from the test module by record_and_answer.py.
"""

import json
import os

from cssselect import GenericTranslator

_css_to_xpath = GenericTranslator.css_to_xpath
_OUT = os.environ["NETWEIR_XPATH_RECORD"]
_TESTS = {"test_select", "test_select_shakespeare"}


def _recording_css_to_xpath(self, css, prefix="descendant-or-self::"):
    xpath = _css_to_xpath(self, css, prefix)
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    if test.split("::")[-1] in _TESTS:
        with open(_OUT, "a", encoding="utf-8") as out:
            out.write(json.dumps({"test": test, "css": css, "query": xpath}, ensure_ascii=False) + "\n")
    return xpath


GenericTranslator.css_to_xpath = _recording_css_to_xpath
