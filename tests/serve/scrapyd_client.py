"""A scrapyd client as Python users have them, against `netweir serve`.

ScrapydAPI below sends and reads exactly what python-scrapyd-api's ScrapydAPI does (scrapyd_api/wrapper.py and
client.py): the same endpoints, the same form fields (a list, such as the settings, as repeated fields), the same
answer fields, and the same handling of answers (not 2xx or status "error" raises with the message; otherwise the
JSON without its "status"). Only the HTTP side is the standard library (urllib) instead of requests, so the test
needs nothing installed.

    python3 scrapyd_client.py TARGET SITE GATE

schedules jobs of the `shop` project's `books` spider on SITE, and prints one line per call: NAME JSON.
GATE is a file that is never made, so the second job runs until it is cancelled.
"""

import base64
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

DEFAULT_ENDPOINTS = {
    "add_version": "/addversion.json",
    "cancel": "/cancel.json",
    "delete_project": "/delproject.json",
    "delete_version": "/delversion.json",
    "list_jobs": "/listjobs.json",
    "list_projects": "/listprojects.json",
    "list_spiders": "/listspiders.json",
    "list_versions": "/listversions.json",
    "schedule": "/schedule.json",
    "daemonstatus": "/daemonstatus.json",
}

JOB_STATES = ["finished", "pending", "running"]


class ScrapydResponseError(Exception):
    """What python-scrapyd-api raises for a failed answer."""


class Client:
    """requests.Session's get and post, as python-scrapyd-api's Client uses them, over urllib."""

    def __init__(self):
        self.auth = None

    def get(self, url, params=None, timeout=None):
        if params:
            url = url + "?" + urllib.parse.urlencode(params, doseq=True)
        return self.request("GET", url, None, timeout)

    def post(self, url, data=None, timeout=None):
        body = urllib.parse.urlencode(data or {}, doseq=True).encode("ascii")
        return self.request("POST", url, body, timeout)

    def request(self, method, url, body, timeout):
        request = urllib.request.Request(url, data=body, method=method)
        if body is not None:
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        if self.auth:
            token = base64.b64encode(("%s:%s" % self.auth).encode("utf-8")).decode("ascii")
            request.add_header("Authorization", "Basic " + token)
        try:
            with urllib.request.urlopen(request, timeout=timeout or 30) as response:
                return self._handle_response(response.status, response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            return self._handle_response(error.code, error.read().decode("utf-8"))

    @staticmethod
    def _handle_response(status, text):
        if not 200 <= status < 400:
            raise ScrapydResponseError("Scrapyd returned a {0} error: {1}".format(status, text))
        try:
            answer = json.loads(text)
        except ValueError:
            raise ScrapydResponseError("Scrapyd returned an invalid JSON response: {0}".format(text))
        if answer["status"] == "ok":
            answer.pop("status")
            return answer
        elif answer["status"] == "error":
            raise ScrapydResponseError(answer["message"])


class ScrapydAPI:
    """python-scrapyd-api's ScrapydAPI: the calls scrapyd dashboards and scripts make."""

    def __init__(self, target="http://localhost:6800", auth=None, timeout=None):
        self.target = target
        self.client = Client()
        self.client.auth = auth
        self.timeout = timeout
        self.endpoints = dict(DEFAULT_ENDPOINTS)

    def _build_url(self, endpoint):
        return urllib.parse.urljoin(self.target, self.endpoints[endpoint])

    def cancel(self, project, job, signal=None):
        data = {"project": project, "job": job}
        if signal is not None:
            data["signal"] = signal
        return self.client.post(self._build_url("cancel"), data=data, timeout=self.timeout)["prevstate"]

    def delete_project(self, project):
        self.client.post(self._build_url("delete_project"), data={"project": project}, timeout=self.timeout)
        return True

    def job_status(self, project, job_id):
        all_jobs = self.list_jobs(project)
        for state in JOB_STATES:
            if job_id in [job["id"] for job in all_jobs[state]]:
                return state
        return ""

    def list_jobs(self, project):
        return self.client.get(self._build_url("list_jobs"), params={"project": project}, timeout=self.timeout)

    def list_projects(self):
        return self.client.get(self._build_url("list_projects"), timeout=self.timeout)["projects"]

    def list_spiders(self, project):
        url = self._build_url("list_spiders")
        return self.client.get(url, params={"project": project}, timeout=self.timeout)["spiders"]

    def list_versions(self, project):
        url = self._build_url("list_versions")
        return self.client.get(url, params={"project": project}, timeout=self.timeout)["versions"]

    def schedule(self, project, spider, settings=None, **kwargs):
        data = {"project": project, "spider": spider}
        data.update(kwargs)
        if settings:
            data["setting"] = ["{0}={1}".format(name, value) for name, value in settings.items()]
        return self.client.post(self._build_url("schedule"), data=data, timeout=self.timeout)["jobid"]

    def daemon_status(self):
        return self.client.get(self._build_url("daemonstatus"), timeout=self.timeout)


def show(name, value):
    print(name, json.dumps(value, sort_keys=True), flush=True)


def wait_for(api, project, job_id, state):
    for _ in range(600):
        if api.job_status(project, job_id) == state:
            return state
        time.sleep(0.1)
    raise SystemExit("job %s never became %s" % (job_id, state))


def main(target, site, gate):
    api = ScrapydAPI(target)
    show("daemon_status", sorted(api.daemon_status()))
    show("list_projects", api.list_projects())
    show("list_spiders", sorted(api.list_spiders("shop")))
    show("list_versions", api.list_versions("shop"))

    job = api.schedule("shop", "books", settings={"max_items": 3, "concurrency": 2}, site=site, category="poetry")
    show("schedule", len(job))
    show("job_status finished", wait_for(api, "shop", job, "finished"))
    jobs = api.list_jobs("shop")
    show("list_jobs", sorted(jobs))
    done = [entry for entry in jobs["finished"] if entry["id"] == job][0]
    show("finished job", {key: done[key] for key in ("project", "spider", "outcome", "items_url", "log_url")})
    with urllib.request.urlopen(urllib.parse.urljoin(target, done["items_url"])) as response:
        items = [json.loads(line) for line in response.read().decode("utf-8").splitlines() if line]
    show("items", sorted({item["category"] for item in items}))

    running = api.schedule("shop", "books", site=site, gate=gate, jobid="Slow-1")
    show("schedule slow", running)
    show("job_status running", wait_for(api, "shop", running, "running"))
    show("cancel", api.cancel("shop", running))
    show("job_status cancelled", wait_for(api, "shop", running, "finished"))
    show("cancel again", api.cancel("shop", running))

    for call, args in (("schedule", ("shop", "nope")), ("delete_project", ("shop",))):
        try:
            getattr(api, call)(*args)
            show(call + " error", None)
        except ScrapydResponseError as error:
            show(call + " error", str(error))
    try:
        api.schedule("shop", "books", settings={"concurrency": 0}, site=site)
        show("bad setting error", None)
    except ScrapydResponseError as error:
        show("bad setting error", str(error))


if __name__ == "__main__":
    main(*sys.argv[1:4])
