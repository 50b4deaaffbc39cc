"""``/docs``: interactive API docs drawn from ``/openapi.json`` by a small script of our own.

FastAPI's Swagger UI and ReDoc load their code from a CDN and run inline script, which the CSP
(``script-src 'self'``) forbids and which would make the docs depend on the network. This page
is one HTML shell and ``static/docs.js`` (plain DOM code, no library): it lists every operation
with its summary, description, parameters and body fields, and a form per operation sends a
real request to this server and shows the answer. Text from the document is only ever set as
``textContent``, never parsed as HTML.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import HTMLResponse

from reverie.http import render as r

router = APIRouter(include_in_schema=False)

SHELL = r.Safe(
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>reverie — API docs</title>'
    '<link rel="stylesheet" href="/static/review.css"><link rel="stylesheet" href="/static/docs.css">'
    '<script src="/static/docs.js" defer></script></head><body>'
    '<header><h1><a href="/">reverie</a></h1><span class="sub">HTTP API</span></header>'
    '<main><p>Every route of <a href="/openapi.json">/openapi.json</a>; each form sends a real request to this '
    "server. With a token set, enter it once here (kept in this page only).</p>"
    '<p><label>token <input id="token" type="password" autocomplete="off" placeholder="bearer token"></label></p>'
    '<div id="ops"><p class="empty">loading the OpenAPI document…</p></div></main></body></html>'
)


@router.get("/docs")
def docs_page() -> HTMLResponse:
    return HTMLResponse(str(SHELL), headers={"Cache-Control": "no-cache"})
