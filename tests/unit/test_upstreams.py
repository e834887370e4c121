"""The loopback upstreams the other tests rely on: real sockets, the specs' behaviour, and the recording."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support.paths import ROOT, SPECS
from tests.support.processes import free_port
from tests.upstreams.ads import AdsUpstream
from tests.upstreams.deploy import DeployUpstream
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

TIMEOUT = httpx.Timeout(5.0)


# --- spec conformance: every answer must match the response the spec declares ----------------------


class SpecChecker:
    """Finds an operation's declared response schema and validates a body against it."""

    def __init__(self, spec_path: str) -> None:
        self.spec: dict[str, Any] = yaml.safe_load((SPECS / spec_path).read_text(encoding="utf-8"))
        resource = Resource.from_contents(self.spec, default_specification=DRAFT202012)
        self.registry = Registry().with_resource("urn:spec", resource)
        self.operations = {
            op["operationId"]: (method.upper(), template)
            for template, item in self.spec["paths"].items()
            for method, op in item.items()
            if method != "parameters"
        }

    def check(self, operation_id: str, request: httpx.Request, response: httpx.Response) -> None:
        method, template = self.operations[operation_id]
        pattern = "^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)) + "$"
        assert request.method == method and re.match(pattern, request.url.path), (operation_id, request.url)
        status = str(response.status_code)
        declared = self.spec["paths"][template][method.lower()]["responses"]
        assert status in declared, f"{operation_id} answered {status}, which the spec does not declare"
        pointer = (
            declared[status].get("$ref") or f"#/paths/{_escape(template)}/{method.lower()}/responses/{status}"
        )
        if "content" not in self._lookup(pointer):
            assert response.content == b"", f"{operation_id} {status} declares no body"
            return
        schema = {"$ref": f"urn:spec{pointer}/content/application~1json/schema"}
        Draft202012Validator(
            schema, registry=self.registry, format_checker=Draft202012Validator.FORMAT_CHECKER
        ).validate(response.json())

    def _lookup(self, pointer: str) -> dict[str, Any]:
        return self.registry.resolver().lookup("urn:spec" + pointer).contents


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


ADS_SPEC = SpecChecker("ads/ads.openapi.yaml")
DEPLOY_SPEC = SpecChecker("deploy/deploy.openapi.yaml")


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture
def ads() -> Iterator[AdsUpstream]:
    with AdsUpstream(token="t0k") as upstream:
        yield upstream


@pytest.fixture
def ads_client(ads: AdsUpstream) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=ads.base_url, headers={"authorization": "Bearer t0k"}, timeout=TIMEOUT
    ) as client:
        yield client


@pytest.fixture
def deploy() -> Iterator[DeployUpstream]:
    with DeployUpstream(key="k3y") as upstream:
        yield upstream


@pytest.fixture
def deploy_client(deploy: DeployUpstream) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=deploy.base_url, headers={"x-deploy-key": "k3y"}, timeout=TIMEOUT) as client:
        yield client


def call(
    client: httpx.Client, spec: SpecChecker, operation_id: str, method: str, url: str, **kwargs: Any
) -> httpx.Response:
    """One request whose answer is checked against the spec before the test looks at it."""
    response = client.request(method, url, **kwargs)
    spec.check(operation_id, response.request, response)
    return response


def ads_call(client: httpx.Client, operation_id: str, method: str, url: str, **kwargs: Any) -> httpx.Response:
    return call(client, ADS_SPEC, operation_id, method, url, **kwargs)


def deploy_call(
    client: httpx.Client, operation_id: str, method: str, url: str, **kwargs: Any
) -> httpx.Response:
    return call(client, DEPLOY_SPEC, operation_id, method, url, **kwargs)


# --- the recording base --------------------------------------------------------------------------


class EchoUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/things/{thing_id}", lambda request, path: Reply(200, {"id": path["thing_id"]}))
        self.route("GET", "/text", lambda request, path: Reply(200, "plain words"))
        self.route("GET", "/boom", lambda request, path: Reply(200, {"x": 1 / 0}))


def test_binds_loopback_and_records_every_part_of_a_request() -> None:
    with EchoUpstream() as upstream:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", upstream.base_url)
        response = httpx.post(
            upstream.base_url + "/things/a%20b?tag=x&tag=y&empty=",
            json={"n": 1},
            headers={"X-Custom": "v"},
            timeout=TIMEOUT,
        )
        assert response.status_code == 200 and response.json() == {"id": "a b"}  # path params decoded
        [seen] = upstream.requests
    assert isinstance(seen, RecordedRequest)
    assert (seen.method, seen.path) == ("POST", "/things/a%20b")  # the path as sent
    assert seen.query == {"tag": ["x", "y"], "empty": [""]}
    assert seen.param("tag") == "x" and seen.param("missing") is None
    assert seen.headers["x-custom"] == "v" and seen.headers["content-type"] == "application/json"
    assert seen.body.startswith(b"{") and seen.json == {"n": 1}


def test_a_body_that_is_not_json_is_kept_raw() -> None:
    with EchoUpstream() as upstream:
        httpx.post(upstream.base_url + "/things/1", content=b"\xff not json", timeout=TIMEOUT)
        [seen] = upstream.requests
    assert seen.body == b"\xff not json" and seen.json is None


def test_unknown_routes_methods_and_handler_bugs_still_answer() -> None:
    with EchoUpstream() as upstream, httpx.Client(base_url=upstream.base_url, timeout=TIMEOUT) as client:
        assert client.get("/nowhere").status_code == 404
        wrong_method = client.get("/things/1")
        assert wrong_method.status_code == 405 and wrong_method.headers["allow"] == "POST"
        bug = client.get("/boom")
        assert bug.status_code == 500 and "ZeroDivisionError" in bug.json()["message"]
        text = client.get("/text")
        assert text.text == "plain words" and text.headers["content-type"].startswith("text/plain")
        assert len(upstream.requests) == 4


def test_clear_forgets_requests() -> None:
    with EchoUpstream() as upstream:
        httpx.get(upstream.base_url + "/text", timeout=TIMEOUT)
        upstream.clear()
        assert upstream.requests == []


def test_concurrent_requests_are_all_recorded() -> None:
    with EchoUpstream() as upstream:

        def hit(n: int) -> None:
            httpx.post(f"{upstream.base_url}/things/{n}", timeout=TIMEOUT)

        threads = [threading.Thread(target=hit, args=(n,)) for n in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(r.path for r in upstream.requests) == sorted(f"/things/{n}" for n in range(20))


def test_fail_next_answers_the_next_requests_then_routes_again() -> None:
    with EchoUpstream() as upstream, httpx.Client(base_url=upstream.base_url, timeout=TIMEOUT) as client:
        upstream.fail_next(503, {"message": "down"}, headers={"Retry-After": "7"}, times=2)
        first, second, third = (client.post("/things/1") for _ in range(3))
        assert [first.status_code, second.status_code, third.status_code] == [503, 503, 200]
        assert first.json() == {"message": "down"} and first.headers["retry-after"] == "7"
        assert len(upstream.requests) == 3  # scripted answers are recorded too


def test_fail_next_without_a_body_sends_an_empty_one() -> None:
    with EchoUpstream() as upstream:
        upstream.fail_next(502)
        response = httpx.post(upstream.base_url + "/things/1", timeout=TIMEOUT)
    assert response.status_code == 502 and response.content == b""


def test_a_delayed_answer_times_the_client_out_and_stopping_is_still_prompt() -> None:
    upstream = EchoUpstream().start()
    try:
        upstream.fail_next(200, {"late": True}, delay_s=5.0)
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(upstream.base_url + "/things/1", timeout=0.3)
    finally:
        started = time.monotonic()
        upstream.stop()
    assert time.monotonic() - started < 5.0  # stop did not wait out the 5 s answer still in flight


def test_delay_and_times_are_bounded() -> None:
    upstream = EchoUpstream()
    with pytest.raises(ValueError):
        upstream.fail_next(200, delay_s=60.0)
    with pytest.raises(ValueError):
        upstream.fail_next(200, times=0)


def test_stopped_upstream_no_longer_listens() -> None:
    with EchoUpstream() as upstream:
        url = upstream.base_url
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/text", timeout=TIMEOUT)
    with pytest.raises(RuntimeError):
        _ = upstream.base_url


# --- ads --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, {"authorization": "Bearer wrong"}, {"authorization": "t0k"}])
def test_ads_refuses_missing_or_wrong_tokens(ads: AdsUpstream, headers: dict[str, str]) -> None:
    with httpx.Client(base_url=ads.base_url, headers=headers, timeout=TIMEOUT) as client:
        response = ads_call(client, "getAccount", "GET", "/account")
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"
    assert len(ads.requests) == 1


def test_ads_list_pages_newest_first_with_total(ads_client: httpx.Client) -> None:
    first = ads_call(ads_client, "listCampaigns", "GET", "/campaigns").json()
    assert (first["page"], first["per_page"], first["total"]) == (1, 20, 45)
    assert [c["id"] for c in first["campaigns"][:3]] == ["cmp_045", "cmp_044", "cmp_043"]
    last = ads_call(
        ads_client, "listCampaigns", "GET", "/campaigns", params={"page": 3, "per_page": 20}
    ).json()
    assert [c["id"] for c in last["campaigns"]] == ["cmp_005", "cmp_004", "cmp_003", "cmp_002", "cmp_001"]
    beyond = ads_call(ads_client, "listCampaigns", "GET", "/campaigns", params={"page": 9}).json()
    assert beyond["campaigns"] == [] and beyond["total"] == 45


def test_ads_list_filters_by_status_and_owner(ads_client: httpx.Client) -> None:
    paused = ads_call(
        ads_client, "listCampaigns", "GET", "/campaigns", params={"status": "paused", "per_page": 100}
    ).json()
    assert paused["total"] == 11 and {c["status"] for c in paused["campaigns"]} == {"paused"}
    owned = ads_call(
        ads_client,
        "listCampaigns",
        "GET",
        "/campaigns",
        params={"owner": "lee@example.com", "status": "active"},
    ).json()
    assert owned["total"] > 0 and {(c["owner"], c["status"]) for c in owned["campaigns"]} == {
        ("lee@example.com", "active")
    }


@pytest.mark.parametrize(
    "params,field",
    [
        ({"per_page": 101}, "per_page"),
        ({"per_page": 0}, "per_page"),
        ({"page": 0}, "page"),
        ({"page": "two"}, "page"),
        ({"status": "deleted"}, "status"),
    ],
)
def test_ads_list_rejects_bad_parameters(
    ads_client: httpx.Client, params: dict[str, Any], field: str
) -> None:
    response = ads_call(ads_client, "listCampaigns", "GET", "/campaigns", params=params)
    assert response.status_code == 422 and response.json()["field"] == field


def test_ads_search_ignores_case_and_honours_status_and_limit(ads_client: httpx.Client) -> None:
    winter = ads_call(
        ads_client, "searchCampaigns", "GET", "/campaigns/search", params={"q": "WINTER"}
    ).json()
    assert [c["id"] for c in winter["campaigns"]][:2] == ["cmp_001", "cmp_006"]
    assert len(winter["campaigns"]) == 9 and all("Winter Sale" in c["name"] for c in winter["campaigns"])
    limited = ads_call(
        ads_client,
        "searchCampaigns",
        "GET",
        "/campaigns/search",
        params={"q": "winter", "limit": 2, "status": "active"},
    ).json()
    assert len(limited["campaigns"]) == 2 and {c["status"] for c in limited["campaigns"]} == {"active"}
    missing = ads_call(ads_client, "searchCampaigns", "GET", "/campaigns/search")
    assert missing.status_code == 422 and missing.json()["field"] == "q"


def test_ads_get_returns_the_full_record_or_404(ads_client: httpx.Client) -> None:
    campaign = ads_call(ads_client, "getCampaign", "GET", "/campaigns/cmp_001").json()
    assert campaign["name"] == "Winter Sale 01" and campaign["status"] == "active"
    assert {"uuid", "thumbnail_url_256px", "internal_revision"} <= campaign.keys()
    missing = ads_call(ads_client, "getCampaign", "GET", "/campaigns/cmp_999")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_ads_encoded_slashes_stay_inside_the_segment(ads: AdsUpstream, ads_client: httpx.Client) -> None:
    response = ads_client.get("/campaigns/..%2Faccount")
    assert response.status_code == 404 and "../account" in response.json()["message"]
    assert ads.requests[-1].path == "/campaigns/..%2Faccount"


def test_ads_create_records_the_body_and_lists_the_campaign_first(
    ads: AdsUpstream, ads_client: httpx.Client
) -> None:
    body = {"name": "Year End", "daily_budget": 250000, "objective": "traffic", "start_date": "2026-12-20"}
    created = ads_call(ads_client, "createCampaign", "POST", "/campaigns", json=body)
    assert created.status_code == 201
    campaign = created.json()
    assert campaign["id"] == "cmp_046" and campaign["status"] == "active"
    assert {k: campaign[k] for k in body} == body and campaign["owner"] == "kim@example.com"
    seen = ads.requests[-1]
    assert (seen.method, seen.path, seen.json) == ("POST", "/campaigns", body)
    assert seen.headers["authorization"] == "Bearer t0k"
    listed = ads_call(ads_client, "listCampaigns", "GET", "/campaigns", params={"per_page": 1}).json()
    assert listed["total"] == 46 and listed["campaigns"][0]["id"] == "cmp_046"


@pytest.mark.parametrize(
    "change,field",
    [
        ({"daily_budget": 999}, "daily_budget"),
        ({"daily_budget": "1000"}, "daily_budget"),
        ({"daily_budget": 1500.5}, "daily_budget"),
        ({"objective": "sales"}, "objective"),
        ({"name": ""}, "name"),
        ({"start_date": "2026-02-30"}, "start_date"),
        ({"start_date": "next monday"}, "start_date"),
        ({"daily_budget_krw": 5000}, "daily_budget_krw"),  # an unknown field is named, not ignored
    ],
)
def test_ads_create_names_the_invalid_field(
    ads_client: httpx.Client, change: dict[str, Any], field: str
) -> None:
    body = {"name": "Year End", "daily_budget": 250000, "objective": "traffic", **change}
    response = ads_call(ads_client, "createCampaign", "POST", "/campaigns", json=body)
    assert response.status_code == 422 and response.json()["field"] == field


def test_ads_create_requires_each_field_and_a_json_object(ads_client: httpx.Client) -> None:
    for missing in ("name", "daily_budget", "objective"):
        body = {
            k: v
            for k, v in {"name": "A", "daily_budget": 5000, "objective": "traffic"}.items()
            if k != missing
        }
        response = ads_call(ads_client, "createCampaign", "POST", "/campaigns", json=body)
        assert response.status_code == 422 and response.json()["field"] == missing
    for content in (b"{not json", b"[1, 2]", b""):
        response = ads_call(
            ads_client,
            "createCampaign",
            "POST",
            "/campaigns",
            content=content,
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 400


def test_ads_budget_update_changes_the_campaign(ads_client: httpx.Client) -> None:
    before = ads_call(ads_client, "getCampaign", "GET", "/campaigns/cmp_003").json()
    updated = ads_call(
        ads_client,
        "updateCampaignBudget",
        "PATCH",
        "/campaigns/cmp_003/budget",
        json={"daily_budget": 300000},
    ).json()
    assert (
        updated["daily_budget"] == 300000 and updated["internal_revision"] == before["internal_revision"] + 1
    )
    too_low = ads_call(
        ads_client, "updateCampaignBudget", "PATCH", "/campaigns/cmp_003/budget", json={"daily_budget": 10}
    )
    assert too_low.status_code == 422 and too_low.json()["field"] == "daily_budget"
    missing = ads_call(
        ads_client,
        "updateCampaignBudget",
        "PATCH",
        "/campaigns/cmp_999/budget",
        json={"daily_budget": 300000},
    )
    assert missing.status_code == 404


def test_ads_pause_and_resume_conflict_when_already_there(ads_client: httpx.Client) -> None:
    paused = ads_call(ads_client, "pauseCampaign", "POST", "/campaigns/cmp_005/pause")
    assert paused.status_code == 200 and paused.json()["status"] == "paused"
    again = ads_call(ads_client, "pauseCampaign", "POST", "/campaigns/cmp_005/pause")
    assert again.status_code == 409 and again.json()["code"] == "conflict"
    resumed = ads_call(ads_client, "resumeCampaign", "POST", "/campaigns/cmp_004/resume")  # seeded paused
    assert resumed.status_code == 200 and resumed.json()["status"] == "active"
    assert ads_call(ads_client, "resumeCampaign", "POST", "/campaigns/cmp_001/resume").status_code == 409
    assert ads_call(ads_client, "pauseCampaign", "POST", "/campaigns/cmp_999/pause").status_code == 404


def test_ads_delete_answers_204_and_the_campaign_is_gone(ads_client: httpx.Client) -> None:
    deleted = ads_call(ads_client, "deleteCampaign", "DELETE", "/campaigns/cmp_006")
    assert deleted.status_code == 204 and deleted.content == b""
    assert ads_call(ads_client, "getCampaign", "GET", "/campaigns/cmp_006").status_code == 404
    assert ads_call(ads_client, "deleteCampaign", "DELETE", "/campaigns/cmp_006").status_code == 404
    assert ads_call(ads_client, "listCampaigns", "GET", "/campaigns").json()["total"] == 44


def test_ads_stats_cover_the_period_and_check_the_dates(ads_client: httpx.Client) -> None:
    period = {"from_date": "2026-11-01", "to_date": "2026-11-30"}
    stats = ads_call(ads_client, "getCampaignStats", "GET", "/campaigns/cmp_007/stats", params=period).json()
    budget = ads_call(ads_client, "getCampaign", "GET", "/campaigns/cmp_007").json()["daily_budget"]
    assert stats["campaign_id"] == "cmp_007" and stats["spend"] == 30 * budget
    assert stats["ctr"] == round(stats["clicks"] / stats["impressions"], 4)
    for params, field in (
        ({"from_date": "2026-11-01"}, "to_date"),
        ({"from_date": "2026-11-30", "to_date": "2026-11-01"}, "to_date"),
        ({"from_date": "11/01/2026", "to_date": "2026-11-30"}, "from_date"),
    ):
        response = ads_call(ads_client, "getCampaignStats", "GET", "/campaigns/cmp_007/stats", params=params)
        assert response.status_code == 422 and response.json()["field"] == field


def test_ads_account(ads_client: httpx.Client) -> None:
    account = ads_call(ads_client, "getAccount", "GET", "/account").json()
    assert account["currency"] == "KRW" and account["monthly_spend_limit"] == 50_000_000


def test_ads_rate_limit_is_scripted_with_retry_after(ads: AdsUpstream, ads_client: httpx.Client) -> None:
    ads.fail_next(429, {"code": "rate_limited", "message": "slow down"}, headers={"Retry-After": "30"})
    limited = ads_call(ads_client, "getAccount", "GET", "/account")
    assert limited.status_code == 429 and limited.headers["retry-after"] == "30"
    assert ads_call(ads_client, "getAccount", "GET", "/account").status_code == 200


def test_ads_seed_is_deterministic_and_each_upstream_has_its_own_store() -> None:
    with AdsUpstream() as one, AdsUpstream() as two:
        assert one.campaigns == two.campaigns and one.base_url != two.base_url
        httpx.delete(
            one.base_url + "/campaigns/cmp_001",
            headers={"authorization": "Bearer test-token"},
            timeout=TIMEOUT,
        )
        assert "cmp_001" not in one.campaigns and "cmp_001" in two.campaigns


def test_every_ads_operation_is_exercised() -> None:
    # The tests above go through ads_call for each of these; a new operation in the spec must get one.
    assert set(ADS_SPEC.operations) == {
        "listCampaigns",
        "searchCampaigns",
        "getCampaign",
        "createCampaign",
        "updateCampaignBudget",
        "pauseCampaign",
        "resumeCampaign",
        "deleteCampaign",
        "getCampaignStats",
        "getAccount",
    }


# --- deploy -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, {"x-deploy-key": "nope"}, {"authorization": "Bearer k3y"}])
def test_deploy_refuses_missing_or_wrong_keys(deploy: DeployUpstream, headers: dict[str, str]) -> None:
    with httpx.Client(base_url=deploy.base_url, headers=headers, timeout=TIMEOUT) as client:
        response = deploy_call(client, "getDeployment", "GET", "/deployments/dep_101")
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"


def test_deploy_lists_newest_first_with_filters(deploy: DeployUpstream, deploy_client: httpx.Client) -> None:
    listed = deploy_call(deploy_client, "listDeployments", "GET", "/services/checkout/deployments").json()
    assert [d["id"] for d in listed] == ["dep_104", "dep_103", "dep_102", "dep_101"]
    production = deploy_call(
        deploy_client,
        "listDeployments",
        "GET",
        "/services/checkout/deployments",
        params={"environment": "production", "limit": 1},
    ).json()
    assert [d["id"] for d in production] == ["dep_104"]
    seen = deploy.requests[-1]
    assert (
        seen.query == {"environment": ["production"], "limit": ["1"]}
        and seen.headers["x-deploy-key"] == "k3y"
    )


@pytest.mark.parametrize(
    "url,params,status",
    [
        ("/services/nope/deployments", {}, 404),
        ("/services/checkout/deployments", {"environment": "qa"}, 422),
        ("/services/checkout/deployments", {"limit": 51}, 422),
    ],
)
def test_deploy_list_errors(
    deploy_client: httpx.Client, url: str, params: dict[str, Any], status: int
) -> None:
    assert deploy_call(deploy_client, "listDeployments", "GET", url, params=params).status_code == status


def test_deploy_get(deploy_client: httpx.Client) -> None:
    deployment = deploy_call(deploy_client, "getDeployment", "GET", "/deployments/dep_104").json()
    assert (deployment["service"], deployment["version"], deployment["status"]) == (
        "checkout",
        "2.4.1",
        "succeeded",
    )
    assert deploy_call(deploy_client, "getDeployment", "GET", "/deployments/dep_999").status_code == 404


def test_deploy_rollback_starts_the_previous_version(
    deploy: DeployUpstream, deploy_client: httpx.Client
) -> None:
    reason = "error rate above 5%"
    started = deploy_call(
        deploy_client, "rollbackDeployment", "POST", "/deployments/dep_104/rollback", json={"reason": reason}
    )
    assert started.status_code == 202
    new = started.json()
    assert (new["service"], new["environment"], new["version"], new["status"]) == (
        "checkout",
        "production",
        "2.3.0",
        "in_progress",
    )
    assert deploy.deployments["dep_104"]["status"] == "rolled_back" and deploy.rollback_reasons == {
        "dep_104": reason
    }
    assert deploy.requests[-1].json == {"reason": reason}
    again = deploy_call(
        deploy_client, "rollbackDeployment", "POST", "/deployments/dep_104/rollback", json={"reason": reason}
    )
    assert again.status_code == 409


@pytest.mark.parametrize(
    "deployment_id,body,status,field",
    [
        ("dep_104", {}, 422, "reason"),
        ("dep_104", {"reason": "   "}, 422, "reason"),
        ("dep_104", {"reason": "x" * 501}, 422, "reason"),
        ("dep_104", [], 400, None),
        ("dep_102", {"reason": "older"}, 409, None),  # not the latest of checkout/production
        ("dep_106", {"reason": "twice"}, 409, None),  # already rolled back
        ("dep_108", {"reason": "running"}, 409, None),  # still in progress
        ("dep_109", {"reason": "nothing before"}, 409, None),
        ("dep_999", {"reason": "ghost"}, 404, None),
    ],
)
def test_deploy_rollback_refusals(
    deploy: DeployUpstream,
    deploy_client: httpx.Client,
    deployment_id: str,
    body: Any,
    status: int,
    field: str | None,
) -> None:
    response = deploy_call(
        deploy_client, "rollbackDeployment", "POST", f"/deployments/{deployment_id}/rollback", json=body
    )
    assert response.status_code == status and response.json().get("field") == field
    assert deploy.rollback_reasons == {}


def test_every_deploy_operation_is_exercised() -> None:
    assert set(DEPLOY_SPEC.operations) == {"listDeployments", "getDeployment", "rollbackDeployment"}


# --- standalone ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "module,secret_flag,headers",
    [
        ("tests.upstreams.ads", "--token", {"authorization": "Bearer s3"}),
        ("tests.upstreams.deploy", "--key", {"x-deploy-key": "s3"}),
    ],
)
def test_runs_standalone_until_interrupted(module: str, secret_flag: str, headers: dict[str, str]) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", module, "--port", str(port), secret_flag, "s3"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stderr.readline()
        assert f"http://127.0.0.1:{port}" in line, line
        path = "/account" if module.endswith("ads") else "/deployments/dep_101"
        assert (
            httpx.get(f"http://127.0.0.1:{port}{path}", headers=headers, timeout=TIMEOUT).status_code == 200
        )
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
        assert process.stderr.read() == ""  # Ctrl-C ends it quietly
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
