"""Property-based run of the app's own OpenAPI document: no request may cause a 5xx.

Schemathesis generates requests (valid and invalid) for every documented /v1 operation; the
only check is ``not_a_server_error`` — everything a client can send must be refused with a
4xx in the error shape or served, never crash the server. Hypothesis drives each operation's
strategy directly (schemathesis's own pytest plugin does not load under this pytest).
"""

from __future__ import annotations

from typing import Any

import schemathesis  # a dev dependency: a missing install must fail, not skip
from hypothesis import HealthCheck, given, settings

from reverie import Memory
from reverie.http import create_app


def test_no_server_errors_on_any_documented_operation(mem: Memory) -> None:
    mem.remember("Alice is allergic to peanuts", scope="user:alice")
    app = create_app(mem, allowed_hosts=["127.0.0.1", "localhost", "testserver"])
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15

    for operation in operations:

        @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(case=operation.as_strategy())
        def run(case: Any) -> None:
            response = case.call()
            # 501 is the documented answer of /dream while Memory has no dream pass
            if response.status_code >= 500 and response.status_code != 501:
                failures.append(f"{case.method} {case.formatted_path} {case.body!r}: {response.text[:200]}")
            else:
                assert set(response.json()) >= {"code", "error", "status"} or response.status_code < 400

        run()
    assert not failures, "\n".join(failures[:10])
