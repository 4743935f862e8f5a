"""scrapyd-client's ScrapydClient (scrapyd_client/pyclient.py, 2.0.3) as it talks to scrapyd, against `netweir serve`.

Every method sends what ScrapydClient sends: the same endpoint, method and fields (GET with a query string, POST with
a form body, schedule's arguments as a list of pairs before project and spider), ScrapydClient's User-Agent and
requests' other default headers, and reads the answer as its _process_response does: the JSON whatever the HTTP
status, "ok" gives the whole answer, "error" raises ErrorResponse with the message. Only the HTTP side is urllib
instead of requests, so the test needs nothing installed.

    python3 scrapyd_pyclient.py TARGET SITE GATE

prints one line per call: NAME JSON.
"""

import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

HEADERS = {
    "User-Agent": "Scrapyd-client/2.0.3",
    "Accept-Encoding": "gzip, deflate",
    "Accept": "*/*",
    "Connection": "keep-alive",
}


class ErrorResponse(Exception):
    """scrapyd_client.exceptions.ErrorResponse."""


class MalformedResponse(Exception):
    """scrapyd_client.exceptions.MalformedResponse."""


def _process_response(text):
    try:
        response = json.loads(text)
    except ValueError as e:
        raise MalformedResponse(text) from e
    status = response["status"]
    if status == "ok":
        return response
    if status == "error":
        raise ErrorResponse(response["message"])
    raise RuntimeError("Unhandled response status: %s" % status)


class ScrapydClient:
    def __init__(self, url):
        self.url = url

    def _send(self, request):
        for name, value in HEADERS.items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return _process_response(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            return _process_response(error.read().decode("utf-8"))

    def _get(self, basename, params=None):
        query = urllib.parse.urlencode(params or {})
        url = "%s/%s.json" % (self.url, basename) + ("?" + query if query else "")
        return self._send(urllib.request.Request(url, method="GET"))

    def _post(self, basename, data):
        body = urllib.parse.urlencode(data).encode("ascii")
        request = urllib.request.Request("%s/%s.json" % (self.url, basename), data=body, method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        return self._send(request)

    def projects(self):
        return self._get("listprojects")["projects"]

    def spiders(self, project):
        return self._get("listspiders", {"project": project})["spiders"]

    def jobs(self, project):
        return self._get("listjobs", {"project": project})

    def daemonstatus(self):
        return self._get("daemonstatus")

    def versions(self, project):
        return self._get("listversions", {"project": project})["versions"]

    def schedule(self, project, spider, args=None):
        return self._post("schedule", data=[*(args or []), ("project", project), ("spider", spider)])["jobid"]

    def status(self, jobid, project=None):
        params = {"job": jobid}
        if project is not None:
            params["project"] = project
        return self._get("status", params)

    def delproject(self, project):
        return self._post("delproject", data={"project": project})

    def delversion(self, project, version):
        return self._post("delversion", data={"project": project, "version": version})

    def cancel(self, project, jobid):
        return self._post("cancel", data={"project": project, "job": jobid})


def show(name, value):
    print(name, json.dumps(value, sort_keys=True), flush=True)


def wait_for(client, job, state):
    for _ in range(600):
        if client.status(job, "shop")["currstate"] == state:
            return state
        time.sleep(0.1)
    raise SystemExit("job %s never became %s" % (job, state))


def main(target, site, gate):
    client = ScrapydClient(target)
    show("projects", client.projects())
    show("spiders", sorted(client.spiders("shop")))
    show("daemonstatus", sorted(client.daemonstatus()))
    show("versions", client.versions("shop"))
    show("status unknown", client.status("no-such-job")["currstate"])
    job = client.schedule("shop", "books", args=[("setting", "max_items=3"), ("site", site), ("category", "poetry")])
    show("schedule", len(job))
    show("status finished", wait_for(client, job, "finished"))
    jobs = client.jobs("shop")
    show("jobs", [entry["id"] for entry in jobs["finished"]] == [job])
    slow = client.schedule("shop", "books", args=[("site", site), ("gate", gate), ("jobid", "slow-2")])
    show("status running", wait_for(client, slow, "running"))
    show("status without project", client.status(slow)["currstate"])
    show("cancel", client.cancel("shop", slow)["prevstate"])
    show("status cancelled", wait_for(client, slow, "finished"))
    for name, call in (
        ("delproject", lambda: client.delproject("shop")),
        ("delversion", lambda: client.delversion("shop", "r1")),
        ("status bad project", lambda: client.status(job, "nope")),
        ("spiders bad project", lambda: client.spiders("../p")),
    ):
        try:
            call()
            show(name + " error", None)
        except ErrorResponse as error:
            show(name + " error", str(error))


if __name__ == "__main__":
    main(*sys.argv[1:4])
