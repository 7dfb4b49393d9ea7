"""Is the server there, and does it let us in? One ``GET /v1/models`` before any load is sent.

A benchmark that starts against a server still loading its model, on the wrong port or with a
missing API key records nothing but failures; this check says which it is in plain words.
"""

from __future__ import annotations

import time

import httpx


class ReadinessError(RuntimeError):
    pass


def models_url(endpoint: str) -> str:
    base = endpoint.rstrip("/")
    for tail in ("/chat/completions", "/completions"):
        if base.endswith(tail):
            base = base[: -len(tail)]
    if not base.endswith("/v1"):
        base += "/v1"
    return base + "/models"


def check_ready(
    endpoint: str,
    *,
    headers: dict[str, str] | None = None,
    ssl_context=None,
    wait_s: float = 0.0,
) -> list[str]:
    """The model ids the server lists (empty when it lists none); raises with a plain message.

    Connection refused and 5xx answers (a server still loading) are retried until ``wait_s``
    has passed; a refused key or a wrong URL is reported at once.
    """
    url = models_url(endpoint)
    deadline = time.monotonic() + wait_s
    verify = ssl_context if ssl_context is not None else True
    last = ""
    while True:
        try:
            resp = httpx.get(url, headers=headers or None, timeout=10.0, verify=verify)
        except httpx.ConnectError as exc:
            last = (
                f"no server answers at {url} ({exc}); start it, check --endpoint, or give "
                "--ready-timeout-s to wait for it"
            )
        except httpx.HTTPError as exc:
            last = f"{url} did not answer ({type(exc).__name__}: {exc})"
        else:
            if resp.status_code in (401, 403):
                raise ReadinessError(
                    f"{url} refused the request (HTTP {resp.status_code}): the server wants an "
                    "API key; give --api-key or set OPENAI_API_KEY"
                )
            if resp.status_code == 404:
                raise ReadinessError(
                    f"{url} answered 404: this is not the base URL of an OpenAI-compatible "
                    "server (give e.g. http://host:8000 or http://host:8000/v1)"
                )
            if resp.status_code == 200:
                try:
                    data = resp.json().get("data") or []
                    return [str(m.get("id")) for m in data if isinstance(m, dict)]
                except (ValueError, AttributeError):
                    raise ReadinessError(
                        f"{url} answered 200 but not with a JSON model list; is this an "
                        "OpenAI-compatible server?"
                    ) from None
            last = f"{url} answered HTTP {resp.status_code} (still loading?)"
        if time.monotonic() >= deadline:
            raise ReadinessError(f"server not ready: {last}")
        time.sleep(0.5)
