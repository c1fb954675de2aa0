"""The OpenAPI document validates, and every route it lists answers over HTTP; ``mnote-kr serve`` end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import jsonschema
import msgspec
import pytest
from mnote_kr_testkit.fakes import fake_host
from openapi_spec_validator import validate

from mnote_kr.server.app import ApiServer
from mnote_kr.server.routes import ROUTES, SyncProvider

API = "/api/knowledge-rag"

#: A request body per route that exercises it for real (not just validation).
BODIES: dict[tuple[str, str], dict] = {
    ("post", f"{API}/ingest"): {"sourcePaths": ["docs/a.md"]},
    ("post", f"{API}/query"): {"query": "alpha"},
    ("post", f"{API}/search"): {"query": "alpha"},
    ("post", f"{API}/delete-source"): {"sourcePaths": ["docs/a.md"]},
    ("post", f"{API}/prune-registry"): {},
    ("post", f"{API}/sync"): {"waitS": 0},
    ("post", f"{API}/roots"): {"rootRelativePath": "docs"},
    ("post", f"{API}/roots/remove"): {"rootRelativePath": "docs"},
    ("post", "/api/web/sign-in"): {"path": "/"},
}


@pytest.fixture
def server(tmp_path: Path):
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("alpha beta gamma\n", encoding="utf-8")
    host, _ = fake_host(ws)
    with ApiServer(host) as srv:
        yield srv


def _get_doc(server: ApiServer) -> dict:
    r = httpx.get(f"{server.url}/api/openapi.json", headers={"Authorization": f"Bearer {server.token}"})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    return r.json()


def test_server_openapi_document_validates(server):
    doc = _get_doc(server)
    validate(doc)  # raises on an invalid OpenAPI 3.1 document
    assert doc["openapi"] == "3.1.0"
    assert doc["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    documented = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    assert documented == {(r.method, r.path) for r in ROUTES}
    for issue_route in ("status", "ingest", "query", "search", "open-reference", "delete-source", "prune-registry",
                        "roots"):
        assert f"{API}/{issue_route}" in doc["paths"]
    assert "/api/plugins" in doc["paths"]
    search = doc["paths"][f"{API}/search"]["post"]
    assert search["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SearchResults"}
    assert "401" in search["responses"] and "413" in search["responses"]
    assert doc["paths"]["/api/health"]["get"]["security"] == []


def test_server_every_documented_route_answers(server):
    doc = _get_doc(server)
    auth = {"Authorization": f"Bearer {server.token}"}
    with httpx.Client(base_url=server.url, headers=auth, timeout=10) as client:
        # State the parameterised routes need: a job, and a citation from a search.
        job = client.post(f"{API}/ingest", json={"sourcePaths": ["docs"], "wait": True}).json()
        client.get(f"/api/jobs/{job['id']}/events")  # until done
        cites = client.post(f"{API}/search", json={"query": "alpha"}).json()["results"]
        assert cites, "the search must find the ingested file"
        BODIES[("post", f"{API}/open-reference")] = {"citationId": cites[0]["citationId"]}
        components = doc["components"]["schemas"]
        answered = []
        # Removals last, so the routes before them see the state they need.
        order = sorted(((m, p) for p, ops in doc["paths"].items() for m in ops),
                       key=lambda mp: ("remove" in mp[1] or "delete" in mp[1], mp[1]))
        for method, template in order:
            path = template.replace("{id}", job["id"])
            op = doc["paths"][template][method]
            if method == "post":
                r = client.post(path, json=BODIES[(method, template)])
            else:
                r = client.get(path)
            assert r.status_code not in (404, 405, 500), (method, path, r.text)
            assert str(r.status_code) in op["responses"], (method, path, r.status_code)
            content = op["responses"][str(r.status_code)]["content"]
            if "application/json" in content:
                schema = {**content["application/json"]["schema"], "components": {"schemas": components}}
                jsonschema.validate(r.json(), schema)  # the answer fits the documented contract
            else:
                assert r.headers["content-type"].startswith("text/event-stream") and "event: done" in r.text
            answered.append((method, template))
    assert len(answered) == len(ROUTES)


def test_mnote_kr_serve_prints_url_and_token_and_serves(tmp_path: Path):
    ws = tmp_path / "ws"
    (ws / ".mnote").mkdir(parents=True)
    env = {**os.environ, "MNOTE_KR_DISABLE_PLUGINS": "lightrag"}
    proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "--workspace", str(ws), "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]  # type: ignore[union-attr]
        url = lines[0].removeprefix("Serving on ").strip()
        token = lines[1].removeprefix("Token: ").strip()
        token_file = Path(lines[2].removeprefix("Token file: ").strip())
        assert url.startswith("http://127.0.0.1:"), lines
        assert token_file.read_text(encoding="utf-8").strip() == token
        assert token_file.parent == Path(os.environ["MNOTE_KR_HOME"]) / "state"
        r = httpx.get(f"{url}/api/knowledge-rag/roots", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200 and r.json() == {"indexedRoots": []}
        assert httpx.get(f"{url}/api/knowledge-rag/roots").status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]


def test_mnote_kr_serve_refuses_a_non_loopback_address(tmp_path: Path):
    # The timeout only stops a hung test: a server that bound and served would never exit.
    done = subprocess.run([sys.executable, "-m", "mnote_kr", "--workspace", str(tmp_path), "serve",
                           "--host", "0.0.0.0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "Refusing to bind 0.0.0.0" in done.stderr and "--allow-non-loopback" in done.stderr
    assert "Serving on" not in done.stdout


def test_openapi_locator_schema_has_the_office_precisions_and_fields() -> None:
    from mnote_kr.server.openapi import openapi_document
    from mnote_kr.server.routes import ROUTES

    locator = openapi_document(ROUTES)["components"]["schemas"]["Locator"]
    assert sorted(locator["properties"]["locatorPrecision"]["enum"]) == ["bbox", "cell", "file", "paragraph", "slide"]
    for name in ("slide", "shapeId", "shapeName", "bboxFraction", "speakerNotes", "sheet", "range", "headerRow",
                 "headers", "rowLabel"):
        assert name in locator["properties"], name


def test_sync_answer_schema_and_docs_name_every_key_it_has(server):
    """``stillFailed`` and ``waitTimedOut`` were in the answer but neither in the schema (a bare object)
    nor in docs/http-api.md: a shell could not know a wait ended early or a file failed before."""
    doc = _get_doc(server)
    components = doc["components"]["schemas"]
    ref = components["SyncResponse"]["properties"]["provider"]["$ref"]
    provider = components[ref.rsplit("/", 1)[1]]
    keys = {"before", "after", "followed", "failed", "stillFailed", "waitTimedOut", "notSent",
            "movedFollowed", "inFlightNotes"}  # notSent, movedFollowed, inFlightNotes: added since
    # movedFollowed (a count, ux24) defaults to 0 and inFlightNotes to [], so the schema does not require them
    assert set(provider["properties"]) == keys and set(provider["required"]) == keys - {"movedFollowed",
                                                                                       "inFlightNotes"}
    answer = httpx.post(f"{server.url}{API}/sync", json={"waitS": 0}, timeout=30,
                        headers={"Authorization": f"Bearer {server.token}"})
    assert answer.status_code == 200 and set(answer.json()["provider"]) == keys
    row = next(line for line in (Path(__file__).parents[1] / "docs" / "http-api.md").read_text().splitlines()
               if line.startswith(f"| `POST {API}/sync`"))
    assert all(f"`{key}`" in row or f'"{key}"' in row for key in keys), row
    # a sync with failures and an ended wait goes over the wire as Host.sync answered it, nothing dropped
    full = {"before": {"submitted": 2}, "after": {"failed": 2}, "followed": 2,
            "failed": [{"path": "kb/a.md", "reason": "no text"}], "stillFailed": [{"path": "kb/b.pdf", "reason": "x",
                                                                    "unchangedSinceMs": 1765000000000}],
            "waitTimedOut": {"seconds": 0.5, "stillWaiting": ["kb/c.md"]},
            "notSent": [{"path": "kb/d.md", "reason": "LightRAG is busy: Pipeline is currently busy"}],
            "movedFollowed": 1, "inFlightNotes": [{"path": "kb/e.docx", "note": "the engine stopped while indexing it; "
                                                                               "sent again: LightRAG indexes it anew"}]}
    assert msgspec.json.decode(msgspec.json.encode(msgspec.convert(full, SyncProvider))) == full
